// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/*
 * Areas of src/ and their boundaries (README.md, "Areas and their boundaries"). Another area's files are reached
 * only through its index.ts; app.ts (with server.ts and worker.ts, the composition root at src/*.ts) may also
 * import an area's *.routes.ts to register it. shared/, db/, plugins/, config.ts and context.ts are
 * infrastructure that every area imports directly.
 *
 * The areas are in one order, lowest first: an area imports only areas before it, so no two areas reach each other
 * and there is no run-time cycle between areas (import-x/no-cycle sees file cycles only). System mail and its queue
 * are the floor; administrators above them; subscribers and their lists below segments, which select them;
 * messaging (campaigns, templates, bounces) below the sender; tracking reads what was sent; public, the pages a
 * subscriber opens, is the top and calls the others through their doors.
 */
const AREAS = ['settings', 'mail', 'webhooks', 'identity', 'subscription', 'segments', 'messaging', 'sending', 'tracking', 'public'];
const areaZones = (areas) =>
  areas.flatMap((area, rank) => {
    const message = `Import what ${area}/ offers from src/${area}/index.ts.`;
    const from = `src/${area}/**/*`;
    const doors = [`**/src/${area}/index.ts`];
    const above = areas.slice(rank + 1);
    return [
      { target: [`src/!(${area})/**/*`], from, except: doors, message },
      { target: ['src/*.ts'], from, except: [...doors, `**/src/${area}/*.routes.ts`], message },
      ...(above.length > 0
        ? [
            {
              target: [`src/${area}/**/*`],
              from: above.map((higher) => `src/${higher}/**/*`),
              message: `${area}/ may import only the areas below it (${areas.slice(0, rank).join(', ') || 'none'}): order in eslint.config.js.`,
            },
          ]
        : []),
    ];
  });

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'drizzle/', '.cache/', 'dist/', 'web/dist/', 'web/src/api/schema.d.ts', 'test-results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  { files: ['bench/**', 'scripts/**', 'test/prepare.ts'], rules: { 'no-console': 'off' } },
  {
    files: ['src/**/*.ts'],
    ...importX.flatConfigs.typescript,
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      // Type-only imports are erased at run time, so they do not count as cycles.
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones: areaZones(AREAS) }],
    },
  },
  {
    // The console gets the same no-cycle rule as src/: a view and its form share a module below both, never each other.
    files: ['web/src/**/*.{ts,tsx}'],
    ...importX.flatConfigs.typescript,
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './web/tsconfig.json' })],
    },
    rules: { 'import-x/no-cycle': 'error' },
  },
);
