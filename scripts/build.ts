import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/*
 * `npm run build` (and `npm start`, which runs it first): transpiles src/ to dist/ file by file, keeping the tree, so
 * the service runs as plain JavaScript. Running TypeScript through the tsx loader in the service process held about
 * 70 MB more resident memory (measured: 200 MB against 130 MB after start). Types are checked by `npm run typecheck`,
 * not here. SQL routines and HTML templates are copied beside the code that reads them.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

const files = filesUnder(src);
rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: files.filter((f) => f.endsWith('.ts')),
  outdir: dist,
  outbase: src,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});
for (const asset of files.filter((f) => !f.endsWith('.ts'))) cpSync(asset, join(dist, relative(src, asset)));
