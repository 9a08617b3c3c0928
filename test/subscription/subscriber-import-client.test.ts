import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { eq, inArray, sql } from 'drizzle-orm';
import { subscribers, subscriptions } from '../../src/db/schema/index.js';
import { createList, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { importAnswer, NOTHING_MORE, reportOf } from './import-answer.js';
import { multipart, type FormPart } from '../multipart.js';

/*
 * The import as real phpList clients drive it (issue 17): broken multipart bodies, refusals on a keep-alive
 * connection, fields after the file.
 */

let t: TestApp;
let headers: Record<string, string>;
let base: string;
before(async () => {
  t = await startTestApp();
  headers = (await t.adminWithSession()).headers;
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(() => t.close());

let seq = 0;
const addr = (name: string) => `${name}-${++seq}@client.example.com`;
const URL_PATH = '/api/v2/subscribers/import';

function post(parts: FormPart[]) {
  const body = multipart(parts);
  return t.inject({ method: 'POST', url: URL_PATH, headers: { ...headers, ...body.headers }, payload: body.payload });
}

async function stored(emails: string[]) {
  const rows = await t.db.select({ email: subscribers.email }).from(subscribers).where(inArray(subscribers.email, emails));
  return rows.map((r) => r.email).sort();
}

/** Whatever the import parked on disk; it must be gone after every request. */
function spoolLeft(): string[] {
  const dir = join(t.config.dataDir, 'tmp');
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe('POST /api/v2/subscribers/import: malformed multipart is 400, not 500', () => {
  test('a multipart content type without a boundary', async () => {
    const res = await t.inject({
      method: 'POST',
      url: URL_PATH,
      headers: { ...headers, 'content-type': 'multipart/form-data' },
      payload: 'email\na@example.com\n',
    });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { message: 'Invalid multipart body: the Content-Type header has no boundary.' });
  });

  test('a body cut off inside the file: 400 and nothing written, fields before or after the file', async () => {
    const list = await createList(t.db);
    for (const order of ['fields first', 'file first']) {
      const emails = Array.from({ length: 50 }, () => addr('cut'));
      const file: FormPart = { name: 'file', filename: 'a.csv', content: `email\n${emails.join('\n')}\n` };
      const field: FormPart = { name: 'list_id', value: String(list.id) };
      const body = multipart(order === 'fields first' ? [field, file] : [file]);
      const cut = body.payload.subarray(0, body.payload.length - 200);
      const res = await t.inject({ method: 'POST', url: URL_PATH, headers: { ...headers, ...body.headers }, payload: cut });
      assert.equal(res.statusCode, 400, `${order}: ${res.body}`);
      assert.deepEqual(res.json(), { message: 'Malformed multipart body: it ends inside the file (cut off?).' });
      assert.deepEqual(await stored(emails), [], order);
    }
    assert.deepEqual(spoolLeft(), []);
  });
});

/** One request through `agent`, timed; `socket` tells whether a kept-alive connection was reused. */
function send(agent: http.Agent, path: string, extra: Record<string, string>, body?: Buffer) {
  return new Promise<{ status: number; body: string; ms: number; reused: boolean; connection: string | undefined }>((resolve, reject) => {
    const start = performance.now();
    const req = http.request(`${base}${path}`, { method: body ? 'POST' : 'GET', agent, headers: extra }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          body: text,
          ms: performance.now() - start,
          reused: req.reusedSocket,
          connection: res.headers.connection,
        }),
      );
    });
    // The server may close once it has answered while the rest of a large upload is still being written.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    req.end(body);
  });
}

describe('POST /api/v2/subscribers/import: an early refusal does not stall the keep-alive connection', () => {
  const csvOf = (rows: number) => `email\n${Array.from({ length: rows }, (_, i) => `keep-${i}@example.com`).join('\n')}\n`;

  for (const [label, rows, keptAlive] of [
    ['a body within the drain limit is read to its end; the connection is reused', 20_000, true],
    ['a larger body closes the connection (Connection: close)', 100_000, false],
  ] as const) {
    test(label, async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const csv = csvOf(rows);
        const refusals: [FormPart[], number, unknown][] = [
          [
            [
              { name: 'list_id', value: '999999' },
              { name: 'file', filename: 'a.csv', content: csv },
            ],
            404,
            { message: 'Subscriber list not found.' },
          ],
          [
            [
              { name: 'list_id', value: 'x' },
              { name: 'file', filename: 'a.csv', content: csv },
            ],
            422,
            { message: 'Validation failed', errors: { list_id: ['This value should be a positive integer.'] } },
          ],
          [
            [
              { name: 'update_existing', value: '1' },
              { name: 'file', filename: 'a.txt', content: csv, contentType: 'text/plain' },
            ],
            422,
            { message: 'Validation failed', errors: { file: ['File must be a CSV (text/csv, or a name ending in .csv).'] } },
          ],
        ];
        for (const [parts, status, answer] of refusals) {
          const form = multipart(parts);
          const refused = await send(agent, URL_PATH, { ...headers, ...form.headers }, form.payload);
          assert.deepEqual([refused.status, JSON.parse(refused.body)], [status, answer]);
          assert.equal(refused.connection, keptAlive ? 'keep-alive' : 'close');
          const next = await send(agent, '/healthz', {});
          assert.equal(next.status, 200);
          assert.equal(next.reused, keptAlive, 'the same connection carries the next request when it was drained');
          assert.ok(next.ms < 2000, `the next request answered after ${Math.round(next.ms)} ms`);
        }
      } finally {
        agent.destroy();
      }
    });
  }
});

describe('POST /api/v2/subscribers/import: fields after the file (phpList JS client)', () => {
  test('file first, then list_id and update_existing: applied; the spooled file is removed', async () => {
    const list = await createList(t.db);
    const known = await createSubscriber(t.db, { email: addr('known'), confirmed: false });
    const fresh = addr('fresh');
    const res = await post([
      { name: 'file', filename: 'subscribers.csv', content: `email,confirmed\n${known.email},1\n${fresh},1\n` },
      { name: 'list_id', value: String(list.id) },
      { name: 'update_existing', value: 'true' },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(importAnswer(res), {
      imported: 1,
      updated: 1,
      skipped: 0,
      errors: [],
      ...NOTHING_MORE,
      existing_subscribers: 1,
      report: reportOf(1),
    });
    const members = await t.db.select({ id: subscriptions.subscriberId }).from(subscriptions).where(eq(subscriptions.listId, list.id));
    const [created] = await t.db.select().from(subscribers).where(eq(subscribers.email, fresh));
    assert.deepEqual(
      members.map((m) => m.id).sort((a, b) => a - b),
      [known.id, created!.id].sort((a, b) => a - b),
    );
    const [updated] = await t.db.select().from(subscribers).where(eq(subscribers.id, known.id));
    assert.equal(updated!.confirmed, true, 'update_existing sent after the file was applied');
    assert.deepEqual(spoolLeft(), []);
  });

  test('file first: an unknown list is 404, a malformed file 422; nothing written, nothing left on disk', async () => {
    const email = addr('spool-refused');
    const unknown = await post([
      { name: 'file', filename: 'a.csv', content: `email\n${email}\n` },
      { name: 'list_id', value: '999999' },
    ]);
    assert.deepEqual([unknown.statusCode, unknown.json()], [404, { message: 'Subscriber list not found.' }]);
    const list = await createList(t.db);
    const broken = await post([
      { name: 'file', filename: 'a.csv', content: `email,extra_data\n${email},x\n${addr('other')},"open\n` },
      { name: 'list_id', value: String(list.id) },
    ]);
    assert.equal(broken.statusCode, 422);
    assert.deepEqual(broken.json(), {
      message: 'Validation failed',
      errors: { file: ['Line 3: a quoted field is not closed before the end of the file.'] },
    });
    const second = await post([
      { name: 'file', filename: 'a.csv', content: `email\n${email}\n` },
      { name: 'file', filename: 'b.csv', content: `email\n${email}\n` },
    ]);
    assert.deepEqual(second.json(), { message: 'Validation failed', errors: { file: ['Send one file only.'] } });
    assert.deepEqual(await stored([email]), []);
    const [members] = await t.db
      .select({ n: sql<number>`count(*)::int` })
      .from(subscriptions)
      .where(eq(subscriptions.listId, list.id));
    assert.equal(members!.n, 0);
    assert.deepEqual(spoolLeft(), []);
  });

  test('a field that is no option before the file (ignored, as phpList) does not make the late list_id too late', async () => {
    const list = await createList(t.db);
    const email = addr('other-field');
    const res = await post([
      { name: 'request_confirmation', value: '1' },
      { name: 'file', filename: 'a.csv', content: `email,confirmed\n${email},1\n` },
      { name: 'list_id', value: String(list.id) },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    const members = await t.db.select().from(subscriptions).where(eq(subscriptions.listId, list.id));
    assert.equal(members.length, 1);
    assert.deepEqual(spoolLeft(), []);
  });

  test('fields first still streams: an option field after the file is refused', async () => {
    const list = await createList(t.db);
    const late = addr('late');
    const res = await post([
      { name: 'list_id', value: String(list.id) },
      { name: 'file', filename: 'a.csv', content: `email\n${late}\n` },
      { name: 'update_existing', value: '1' },
    ]);
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), {
      message: 'Validation failed',
      errors: { update_existing: ['Send this field before the file, or in the query string.'] },
    });
    assert.deepEqual(await stored([late]), []);
  });
});

describe("POST /api/v2/subscribers/import: what the answer says beyond phpList's fields", () => {
  test('ignored_columns names every header that set nothing; unconfirmed counts who campaigns will not reach', async () => {
    const [a, b, c] = [addr('cols'), addr('cols'), addr('cols')];
    const known = await createSubscriber(t.db, { email: addr('cols-known'), confirmed: true });
    const csv =
      'email,first name,City,password,EMAIL,confirmed,,Modified\n' +
      `${a},Ann,Oslo,secret,x@example.com,1,,\n${b},Bob,Rome,,,0,,\n${c},Cy,Nice,,,,,\n${known.email},,,,,no,,\n`;
    const res = await post([
      { name: 'update_existing', value: 'yes' },
      { name: 'file', filename: 'people.csv', content: csv },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(importAnswer(res), {
      imported: 3,
      updated: 1,
      skipped: 0,
      errors: [],
      ignored_columns: ['first name', 'City', 'password', 'EMAIL', 'Modified'],
      unconfirmed: 3,
      duplicates_in_file: 0,
      existing_subscribers: 1,
      report: reportOf(1),
    });
  });
});
