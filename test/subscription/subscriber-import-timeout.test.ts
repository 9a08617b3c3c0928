import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { loadConfig } from '../../src/config.js';
import { subscriptions } from '../../src/db/schema/index.js';
import { createList } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { pauseTrigger } from '../pause-trigger.js';

/*
 * An import that takes the database longer than REQUEST_TIMEOUT_MS still answers: its body is taken at the speed it
 * arrives (spooled to disk) and imported after, so the request is whole long before the import ends. Streamed
 * straight into the database, a million-row import on a slow machine was cut off with a 408 after 5 minutes. Here
 * the timeout is one second, the file 10 MB (far more than the socket's and the parser's buffers hold), and the
 * database stops for two seconds at the import's first insert (a trigger that sleeps once).
 */

const TIMEOUT_MS = 1000;
const ROWS = 10_000;
/** An ignored column per row, so the file is large while the import stays small. */
const PADDING = 'x'.repeat(1000);

let t: TestApp;
let base: string;
before(async () => {
  const requests = { ...loadConfig({}).requests, timeoutMs: TIMEOUT_MS, idleTimeoutMs: TIMEOUT_MS };
  t = await startTestApp({ requests });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { pause } = await pauseTrigger(t.db, 'import_pause', { table: 'subscribers', event: 'insert' });
  await pause(2);
});
after(() => t.close());

/** Posts `csv` as the form's file with `query` in the URL (options first), over a real connection. */
function upload(sessionKey: string, query: string, csv: Buffer): Promise<{ status: number; body: string }> {
  const boundary = 'import-timeout-boundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const body = Buffer.concat([head, csv, tail]);
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}/api/v2/subscribers/import?${query}`,
      {
        method: 'POST',
        headers: {
          'php-auth-pw': sessionKey,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(body.length),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('POST /api/v2/subscribers/import: longer than REQUEST_TIMEOUT_MS', () => {
  test('a 10 MB file whose import outlasts the request timeout is imported whole and answered 200', async () => {
    const { key } = await t.adminWithSession({ loginName: 'import-timeout' });
    const list = await createList(t.db, { name: 'Slow import' });
    const lines = ['email,notes'];
    for (let i = 0; i < ROWS; i++) lines.push(`slow-${i}@example.com,${PADDING}`);
    const csv = Buffer.from(lines.join('\n') + '\n');
    assert.ok(csv.length > 10_000_000);

    const started = Date.now();
    const res = await upload(key, `list_id=${list.id}`, csv);
    assert.equal(res.status, 200, res.body);
    assert.ok(Date.now() - started > TIMEOUT_MS, 'the import outlasted the request timeout');
    const answer = JSON.parse(res.body) as { imported: number; skipped: number; errors: string[] };
    assert.deepEqual([answer.imported, answer.skipped, answer.errors], [ROWS, 0, []]);
    const members = await t.db.$count(subscriptions, eq(subscriptions.listId, list.id));
    assert.equal(members, ROWS);
  });
});
