import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { loadConfig } from '../../src/config.js';
import { STORED_CHUNK_BYTES } from '../../src/messaging/attachment-db-storage.js';
import { attachmentStorage } from '../../src/messaging/attachment-storage.js';
import { createCampaign, createDelivery, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { multipart, type FilePart } from './multipart.js';

/*
 * Issue 17: with ATTACHMENT_STORE=database (the default when DATABASE_URL is set) attachment bytes live in the
 * database, chunked, so any process on the same database can send or serve them. The same API as on disk
 * (attachment.test.ts), on PGlite and PostgreSQL.
 */

const LIMIT = 1_000_000;
let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp({ attachmentMaxSize: LIMIT, attachmentStore: 'database' });
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const pattern = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7) % 253));
const chunkRows = async (hash: string) =>
  queryRows<{ seq: number; n: number }>(
    t.db,
    sql`select seq, length(data)::int as n from attachment_chunks where content_hash = ${hash} order by seq`,
  );
const temporaryRows = async () =>
  (await queryRows<{ n: number }>(t.db, sql`select count(*)::int as n from attachment_chunks where content_hash like 'tmp:%'`))[0]!.n;

function upload(campaignId: number, file: FilePart) {
  const form = multipart({}, [file]);
  return t.inject({
    method: 'POST',
    url: `/api/v2/campaigns/${campaignId}/attachments`,
    headers: { ...headers, ...form.headers },
    payload: form.payload,
  });
}

describe('attachments in the database', () => {
  test('the default follows DATABASE_URL; ATTACHMENT_STORE says otherwise', () => {
    assert.equal(loadConfig({}).attachmentStore, 'disk');
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://db/x' }).attachmentStore, 'database');
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://db/x', ATTACHMENT_STORE: 'disk' }).attachmentStore, 'disk');
    assert.equal(loadConfig({ ATTACHMENT_STORE: 'database' }).attachmentStore, 'database');
    assert.throws(() => loadConfig({ ATTACHMENT_STORE: 's3' }), /ATTACHMENT_STORE/);
  });

  test('an upload is stored in 256 KiB chunks under its SHA-256, nothing on disk; downloads stream 8192-byte chunks', async () => {
    const data = pattern(2 * STORED_CHUNK_BYTES + 1000);
    const campaign = await createCampaign(t.db);
    const res = await upload(campaign.id, { name: 'file', filename: 'big.bin', data });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(await chunkRows(sha(data)), [
      { seq: 0, n: STORED_CHUNK_BYTES },
      { seq: 1, n: STORED_CHUNK_BYTES },
      { seq: 2, n: 1000 },
    ]);
    assert.equal(await temporaryRows(), 0);
    const root = join(t.config.dataDir, 'attachments');
    assert.ok(!existsSync(root) || readdirSync(root).filter((n) => n !== 'tmp').length === 0, 'no file under DATA_DIR/attachments');

    const subscriber = await createSubscriber(t.db);
    await createDelivery(t.db, campaign.id, subscriber.id);
    const download = await t.inject({ method: 'GET', url: `/attachments/download/${res.json().id}?uid=${subscriber.uniqueId}` });
    assert.equal(download.statusCode, 200);
    assert.equal(download.headers['content-length'], String(data.length));
    assert.deepEqual(download.rawPayload, data);

    const stream = await attachmentStorage(t.ctx).open(sha(data), { chunkSize: 8192 });
    const sizes: number[] = [];
    for await (const chunk of stream!) sizes.push((chunk as Buffer).length);
    assert.equal(
      sizes.reduce((a, b) => a + b, 0),
      data.length,
    );
    assert.ok(
      sizes.every((n) => n <= 8192),
      'never more than 8192 bytes at a time',
    );
    assert.equal(sizes.filter((n) => n === 8192).length, 64, '32 full chunks out of each stored chunk');
  });

  test('the same bytes twice are one copy; they go when the last attachment using them does', async () => {
    const data = pattern(5000);
    const one = await createCampaign(t.db);
    const two = await createCampaign(t.db);
    const a = (await upload(one.id, { name: 'file', filename: 'a.bin', data })).json();
    const b = (await upload(two.id, { name: 'file', filename: 'b.bin', data })).json();
    assert.deepEqual(await chunkRows(sha(data)), [{ seq: 0, n: 5000 }]);
    assert.equal((await t.inject({ method: 'DELETE', url: `/api/v2/campaigns/${one.id}/attachments/${a.id}`, headers })).statusCode, 204);
    assert.equal((await chunkRows(sha(data))).length, 1, 'still used by the other campaign');
    assert.equal((await t.inject({ method: 'DELETE', url: `/api/v2/campaigns/${two.id}/attachments/${b.id}`, headers })).statusCode, 204);
    assert.deepEqual(await chunkRows(sha(data)), []);
  });

  test('too large: 413, and nothing is left behind; an unknown hash opens as null', async () => {
    const campaign = await createCampaign(t.db);
    const res = await upload(campaign.id, { name: 'file', filename: 'huge.bin', data: pattern(LIMIT + 1) });
    assert.deepEqual([res.statusCode, res.json()], [413, { message: `The file is larger than the limit of ${LIMIT} bytes.` }]);
    assert.equal(await temporaryRows(), 0);
    assert.equal(
      (
        await queryRows<{ n: number }>(t.db, sql`select count(*)::int as n from attachment_chunks where content_hash = ${sha(pattern(LIMIT + 1))}`)
      )[0]!.n,
      0,
    );
    const storage = attachmentStorage(t.ctx);
    assert.equal(await storage.open('0'.repeat(64)), null);
    assert.equal(await storage.exists('0'.repeat(64)), false);
    // A stream that fails midway stores nothing either.
    const failing = Readable.from(
      (async function* () {
        yield pattern(STORED_CHUNK_BYTES + 10);
        throw new Error('client went away');
      })(),
    );
    await assert.rejects(storage.put(failing), /client went away/);
    assert.equal(await temporaryRows(), 0);
  });
});
