import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runExport, runImport, writeImportCsv } from './subscription-io.scenarios.js';

/*
 * Measures the CSV import and export against a service you started yourself, e.g.
 *   createdb -h 127.0.0.1 -U postgres csvio_scratch
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/csvio_scratch ADMIN_LOGIN=bench ADMIN_PASSWORD=bench-password \
 *     LOG_LEVEL=warn SEND_WORKER=off PORT=8099 node --import tsx src/server.ts &
 *   SERVICE_PID=$! ROWS=1000000 npx tsx bench/csvio-measure.ts
 * Prints rows/s and the service's peak RSS (VmHWM from /proc/<pid>/status) after each step.
 */

const baseUrl = process.env.BASE_URL ?? 'http://127.0.0.1:8099';
const rows = Number(process.env.ROWS ?? 1_000_000);
const pid = process.env.SERVICE_PID;

function peakRssMb(): number | string {
  if (!pid) return 'set SERVICE_PID';
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return Math.round(kb / 1024);
}

async function api(path: string, key: string | null, body: unknown) {
  const res = await fetch(`${baseUrl}/api/v2${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'php-auth-pw': key } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function main() {
  const login = await api('/sessions', null, {
    login_name: process.env.ADMIN_LOGIN ?? 'bench',
    password: process.env.ADMIN_PASSWORD ?? 'bench-password',
  });
  if (login.status !== 201) throw new Error(`login failed: ${JSON.stringify(login.json)}`);
  const sessionKey = String(login.json.key);
  const list = await api('/lists', sessionKey, { name: `Measure ${new Date().toISOString()}` });
  const listId = Number(list.json.id);
  for (const name of ['first_name', 'city']) await api('/attributes', sessionKey, { name, type: 'textline' });

  const path = join(tmpdir(), `csvio-measure-${process.pid}.csv`);
  const size = await writeImportCsv(path, rows, `m${Date.now().toString(36)}`);
  process.stdout.write(`${JSON.stringify({ step: 'csv written', rows, megabytes: Math.round(size / 1e5) / 10, peak_rss_mb: peakRssMb() })}\n`);
  try {
    const imported = await runImport({ sessionKey, listId, path, rows }, baseUrl);
    process.stdout.write(`${JSON.stringify({ step: 'import', ...imported, peak_rss_mb: peakRssMb() })}\n`);
    const exported = await runExport({ sessionKey, listId, rows }, baseUrl);
    process.stdout.write(`${JSON.stringify({ step: 'export', ...exported, peak_rss_mb: peakRssMb() })}\n`);
  } finally {
    rmSync(path, { force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
