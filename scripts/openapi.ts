import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { lintFromString, loadConfig as loadLintConfig } from '@redocly/openapi-core';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

/**
 * Writes docs/openapi.json from the route schemas and lints it with Redocly's rules (redocly.yaml, exceptions in
 * .redocly.lint-ignore.yaml; no network). With --check, also fails when the committed file differs (CI runs it so
 * the document never drifts from the code).
 */
const path = new URL('../docs/openapi.json', import.meta.url);
const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: '.cache/openapi-data', SEND_WORKER: 'off' });
const { createDatabase } = await import('../src/db/client.js');
const database = await createDatabase({ databaseUrl: '', dataDir: 'memory://' });
const app = await buildApp({ config, database });
await app.ready();
const document = `${JSON.stringify(app.swagger(), null, 2)}\n`;
await app.close();

const lintConfig = await loadLintConfig({ configPath: fileURLToPath(new URL('../redocly.yaml', import.meta.url)) });
const problems = (await lintFromString({ source: document, absoluteRef: fileURLToPath(path), config: lintConfig })).filter(
  (problem) => !problem.ignored,
);
for (const problem of problems) {
  console.error(`${problem.severity} ${problem.ruleId}: ${problem.message} (${problem.location[0]?.pointer ?? ''})`);
}
if (problems.length > 0) {
  console.error(`docs/openapi.json: ${problems.length} lint problem(s) (Redocly's recommended rules).`);
  process.exit(1);
}

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    // missing counts as different
  }
  if (current !== document) {
    console.error('docs/openapi.json is out of date: run `npm run openapi` and commit it.');
    process.exit(1);
  }
  console.log('docs/openapi.json is current');
} else {
  writeFileSync(path, document);
  console.log('wrote docs/openapi.json');
}
