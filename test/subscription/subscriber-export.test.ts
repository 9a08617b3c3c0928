import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { attributeDefinitions, attributeOptions, subscriberAttributeValues, subscribers, subscriptions } from '../../src/db/schema/index.js';
import { EXPORT_BATCH_SIZE } from '../../src/subscription/subscriber-export.service.js';
import { createList, createSubscriber, subscribe } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { multipart } from '../multipart.js';

/*
 * The file's database is shared by every test, so each export filters by a list of its own (or reads the rows of
 * its own subscribers), and whole files are compared where the rows are known.
 */

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

let seq = 0;
const addr = (name: string) => `${name}-${++seq}@example.com`;
const atom = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, '+00:00');
const today = () => new Date().toISOString().slice(0, 10);

function exportPost(body: Record<string, unknown>, sessionHeaders = headers) {
  return t.inject({ method: 'POST', url: '/api/v2/subscribers/export', headers: sessionHeaders, payload: body });
}

async function member(listId: number, values: Partial<typeof subscribers.$inferInsert> = {}) {
  const row = await createSubscriber(t.db, { email: addr('m'), ...values });
  await subscribe(t.db, listId, row.id);
  return row;
}

describe('POST /api/v2/subscribers/export', () => {
  test('default columns, headers of a CSV download, id order, booleans as 1/0', async () => {
    const list = await createList(t.db);
    const a = await member(list.id, { confirmed: true, htmlEmail: true, bounceCount: 3, foreignKey: 'crm-1', extraData: 'x' });
    const b = await member(list.id, { blacklisted: true, disabled: true, htmlEmail: false });
    const res = await exportPost({ list_id: list.id });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(res.headers['content-disposition'], `attachment; filename=subscribers_export_${today()}.csv`);
    assert.equal(res.headers['x-content-type-options'], undefined, 'no JSON security headers on a file');
    const row = (s: typeof a, fields: string) =>
      `${s.id},${s.email},${fields.split('|')[0]},${atom(s.createdAt)},${atom(s.updatedAt)},${s.uniqueId},${fields.split('|')[1]}`;
    assert.equal(
      res.body,
      'id,email,confirmed,blacklisted,bounceCount,createdAt,updatedAt,uniqueId,htmlEmail,rssFrequency,disabled,extraData,foreignKey\r\n' +
        `${row(a, '1,0,3|1,,0,x,crm-1')}\r\n` +
        `${row(b, '0,1,0|0,,1,,')}\r\n`,
    );
  });

  test('chosen columns in their order, attribute columns by name (option names), quoting, formula guard', async () => {
    const list = await createList(t.db);
    const [city] = await t.db
      .insert(attributeDefinitions)
      .values({ name: `City ${++seq}`, type: 'textarea' })
      .returning();
    const [colour] = await t.db
      .insert(attributeDefinitions)
      .values({ name: `Colour${++seq}`, type: 'checkboxgroup' })
      .returning();
    const [red, blue] = await t.db
      .insert(attributeOptions)
      .values([
        { definitionId: colour!.id, name: 'Red', listOrder: 1 },
        { definitionId: colour!.id, name: 'Blue', listOrder: 2 },
      ])
      .returning();
    const a = await member(list.id, { extraData: '=HYPERLINK("http://evil")' });
    const b = await member(list.id, { extraData: '-5' });
    await t.db.insert(subscriberAttributeValues).values([
      { subscriberId: a.id, definitionId: city!.id, value: 'Oslo, "Norway"\nnorth' },
      { subscriberId: a.id, definitionId: colour!.id, value: `${red!.id},${blue!.id}` },
      { subscriberId: b.id, definitionId: city!.id, value: '@SUM(A1)' },
    ]);
    const columns = ['email', city!.name.toUpperCase(), colour!.name, 'extra_data', 'bounce_count'];
    const res = await exportPost({ list_id: list.id, columns });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(
      res.body,
      `email,${city!.name.toUpperCase()},${colour!.name},extra_data,bounce_count\r\n` +
        `${a.email},"Oslo, ""Norway""\nnorth","Red, Blue","'=HYPERLINK(""http://evil"")",0\r\n` +
        `${b.email},'@SUM(A1),,-5,0\r\n`,
    );
    const raw = await exportPost({ list_id: list.id, columns: ['extraData'], escape_formulas: false });
    assert.equal(raw.body, 'extraData\r\n"=HYPERLINK(""http://evil"")"\r\n-5\r\n');
  });

  test('filters: confirmed, blacklisted (booleans or phpList strings), signup and subscription dates', async () => {
    const list = await createList(t.db);
    const old = await member(list.id, { confirmed: true, createdAt: new Date('2020-01-10T12:00:00Z') });
    const mid = await member(list.id, { confirmed: false, createdAt: new Date('2020-01-20T23:59:00Z') });
    const black = await member(list.id, { blacklisted: true, confirmed: true, createdAt: new Date('2020-02-01T00:00:00Z') });
    await t.db
      .update(subscriptions)
      .set({ createdAt: new Date('2021-05-05T10:00:00Z') })
      .where(eq(subscriptions.subscriberId, mid.id));
    const emails = async (body: Record<string, unknown>) => {
      const res = await exportPost({ list_id: list.id, columns: ['email'], ...body });
      assert.equal(res.statusCode, 200, res.body);
      return res.body.trim().split('\r\n').slice(1);
    };
    assert.deepEqual(await emails({}), [old.email, mid.email, black.email]);
    assert.deepEqual(await emails({ is_confirmed: true }), [old.email, black.email]);
    assert.deepEqual(await emails({ is_confirmed: '0' }), [mid.email]);
    assert.deepEqual(await emails({ is_blacklisted: 'true', is_confirmed: '1' }), [black.email]);
    assert.deepEqual(await emails({ date_type: 'signup', date_from: '2020-01-10', date_to: '2020-01-20' }), [old.email, mid.email]);
    assert.deepEqual(await emails({ dateType: 'signup', dateFrom: '2020-01-11' }), [mid.email, black.email]);
    assert.deepEqual(await emails({ date_type: 'subscribed', date_from: '2021-05-05', date_to: '2021-05-05' }), [mid.email]);
    assert.deepEqual(await emails({ date_type: 'any', date_from: '2030-01-01' }), [old.email, mid.email, black.email]);
  });

  test('without a list every subscriber is exported, across several batches', async () => {
    const before = await exportPost({ columns: ['id'] });
    const count = before.body.trim().split('\r\n').length - 1;
    const extra = EXPORT_BATCH_SIZE + 5 - count;
    if (extra > 0) {
      await t.db
        .insert(subscribers)
        .values(Array.from({ length: extra }, (_, i) => ({ email: `bulk-${i}-${++seq}@example.com`, uniqueId: `u${seq}x${i}` })));
    }
    const res = await exportPost({ columns: ['id'] });
    const ids = res.body.trim().split('\r\n').slice(1).map(Number);
    const all = await t.db.select({ id: subscribers.id }).from(subscribers).orderBy(subscribers.id);
    assert.deepEqual(
      ids,
      all.map((r) => r.id),
    );
    assert.ok(ids.length > EXPORT_BATCH_SIZE);
  });

  test('a filter matching only past the first batch of a list still finds it', async () => {
    const list = await createList(t.db);
    const rows = await t.db
      .insert(subscribers)
      .values(
        Array.from({ length: EXPORT_BATCH_SIZE + 2 }, (_, i) => ({
          email: `scan-${i}-${++seq}@example.com`,
          uniqueId: `scan${seq}x${i}`,
          blacklisted: i === EXPORT_BATCH_SIZE + 1,
        })),
      )
      .returning({ id: subscribers.id, email: subscribers.email });
    await t.db.insert(subscriptions).values(rows.map((r) => ({ listId: list.id, subscriberId: r.id })));
    const res = await exportPost({ list_id: list.id, is_blacklisted: true, columns: ['email'] });
    assert.equal(res.body, `email\r\n${rows.at(-1)!.email}\r\n`);
  });

  test('an import of the export gives the same values back (the formula guard is taken off again)', async () => {
    const list = await createList(t.db);
    const a = await member(list.id, { extraData: '+SUM(1,2)' });
    const exported = await exportPost({ list_id: list.id, columns: ['email', 'extra_data'] });
    await t.db.update(subscribers).set({ extraData: null }).where(eq(subscribers.id, a.id));
    const body = multipart([
      { name: 'update_existing', value: '1' },
      { name: 'file', filename: 'export.csv', content: exported.body },
    ]);
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/subscribers/import',
      headers: { ...headers, ...body.headers },
      payload: body.payload,
    });
    const report = res.json().report as { id: string };
    assert.deepEqual(res.json(), {
      imported: 0,
      updated: 1,
      skipped: 0,
      errors: [],
      ignored_columns: [],
      unconfirmed: 1,
      duplicates_in_file: 0,
      existing_subscribers: 1,
      report: { id: report.id, rows: 1, url: `/api/v2/import-reports/${report.id}` },
    });
    const [row] = await t.db.select().from(subscribers).where(eq(subscribers.id, a.id));
    assert.equal(row!.extraData, '+SUM(1,2)');
  });

  test('validation: date_type, dates, boolean filters, unknown columns, subscribed without a list: 422', async () => {
    const failure = (field: string, message: string) => ({ message: 'Validation failed', errors: { [field]: [message] } });
    const check = async (body: Record<string, unknown>, expected: object) => {
      const res = await exportPost(body);
      assert.equal(res.statusCode, 422, JSON.stringify(body));
      assert.deepEqual(res.json(), expected);
    };
    await check(
      { dateType: 'invalid_type' },
      failure('date_type', 'The value you selected is not a valid choice. Allowed values: any, signup, changed, changelog, subscribed.'),
    );
    await check({ date_from: '2020-13-01' }, failure('date_from', 'This value is not a valid datetime.'));
    await check({ date_to: 'yesterday' }, failure('date_to', 'This value is not a valid datetime.'));
    await check({ is_confirmed: 'yes' }, failure('is_confirmed', 'is_confirmed must be one of: true, false, 1, 0'));
    await check({ is_blacklisted: 2 }, failure('is_blacklisted', 'is_blacklisted must be one of: true, false, 1, 0'));
    await check({ columns: ['email', 'nope'] }, failure('columns[1]', 'Unknown column "nope": not a subscriber field nor an attribute name.'));
    await check({ date_type: 'subscribed' }, failure('date_type', 'The subscribed date needs a list_id.'));
  });

  test('unknown list 404; no session 403; without the subscribers privilege 403', async () => {
    const missing = await exportPost({ list_id: 999999 });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), { message: 'Subscriber list not found.' });
    const anonymous = await t.inject({ method: 'POST', url: '/api/v2/subscribers/export', payload: {} });
    assert.equal(anonymous.statusCode, 403);
    assert.deepEqual(anonymous.json(), { message: 'No valid session key was provided as basic auth password.' });
    const weak = await t.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    const denied = await exportPost({}, weak.headers);
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), { message: 'You are not allowed to export subscribers.' });
    const deniedGet = await t.inject({ method: 'GET', url: '/api/v2/subscribers/export', headers: weak.headers });
    assert.equal(deniedGet.statusCode, 403);
  });
});

describe('GET /api/v2/subscribers/export (alias with query parameters)', () => {
  test('the same file as the POST; columns[] and comma lists; camelCase names', async () => {
    const list = await createList(t.db);
    await member(list.id, { confirmed: true });
    await member(list.id, { confirmed: false });
    const post = await exportPost({ list_id: list.id, is_confirmed: true, columns: ['email', 'uniqueId'] });
    const forms = [
      `list_id=${list.id}&is_confirmed=true&columns[]=email&columns[]=uniqueId`,
      `listId=${list.id}&isConfirmed=1&columns=email,uniqueId`,
    ];
    for (const query of forms) {
      const res = await t.inject({ method: 'GET', url: `/api/v2/subscribers/export?${query}`, headers });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
      assert.equal(res.body, post.body);
    }
    const bad = await t.inject({ method: 'GET', url: '/api/v2/subscribers/export?is_confirmed=maybe', headers });
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(bad.json(), {
      message: 'Validation failed',
      errors: { is_confirmed: ['is_confirmed must be one of: true, false, 1, 0'] },
    });
  });
});
