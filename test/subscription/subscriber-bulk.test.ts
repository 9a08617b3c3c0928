import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { createList, createSubscriber, subscribe } from '../factories.js';
import { atom, startTestApp, type TestApp } from '../helper.js';

/*
 * Bulk actions through HTTP on a real database: by ids and by the list view's filter, a selection of one batch
 * (answered done) and one of several (a background job polled to the end), the counters the triggers keep, history,
 * webhooks, privileges and bad requests.
 */

let t: TestApp;
let headers: Record<string, string>;
let login: string;
/** More subscribers than one batch (1,000), all at @many.example. */
const MANY = 1250;

before(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  const session = await t.adminWithSession();
  headers = { ...session.headers, 'user-agent': 'bulk-test' };
  login = session.admin.loginName;
  await t.db.execute(sql`
    insert into subscribers (email, unique_id, confirmed)
    select 'many-' || n || '@many.example', md5('many' || n), n % 5 <> 0 from generate_series(1, ${MANY}) n`);
});
after(() => t.close());

const int = (row: Record<string, unknown>, key: string) => Number(row[key]);
async function one(query: ReturnType<typeof sql>): Promise<number> {
  return (await queryRows(t.db, query, (r) => int(r, 'n')))[0]!;
}

async function bulk(payload: unknown, as = headers) {
  return t.inject({ method: 'POST', url: '/api/v2/subscribers/bulk', headers: as, payload: payload as object });
}

/** Polls the job until it is no longer running, as the console does. */
async function finished(jobId: number) {
  for (let i = 0; i < 600; i++) {
    const res = await t.inject({ method: 'GET', url: `/api/v2/bulk-jobs/${jobId}`, headers });
    assert.equal(res.statusCode, 200, res.body);
    const job = res.json();
    if (job.state !== 'running') return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the job did not finish');
}

async function memberCount(listId: number): Promise<number> {
  const res = await t.inject({ method: 'GET', url: `/api/v2/lists/${listId}/subscribers/count`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().subscribers_count;
}

/** Every counter the triggers keep equals a count of the rows it stands for. */
async function assertCountersExact() {
  const members = await queryRows(
    t.db,
    sql`select l.id,
          coalesce((select sum(members) from list_member_counts c where c.list_id = l.id), 0) as kept,
          (select count(*) from subscriptions m where m.list_id = l.id) as counted,
          coalesce((select sum(members) from list_sendable_counts c where c.list_id = l.id), 0) as kept_sendable,
          (select count(*) from subscriptions m join subscribers s on s.id = m.subscriber_id
           where m.list_id = l.id and s.confirmed and not s.blacklisted and not s.disabled
             and not exists (select 1 from blacklist b where lower(b.email) = lower(s.email))) as counted_sendable
        from lists l`,
    (r) => ({
      id: int(r, 'id'),
      kept: int(r, 'kept'),
      counted: int(r, 'counted'),
      keptSendable: int(r, 'kept_sendable'),
      countedSendable: int(r, 'counted_sendable'),
    }),
  );
  for (const m of members) {
    assert.equal(m.kept, m.counted, `list ${m.id}: member counter`);
    assert.equal(m.keptSendable, m.countedSendable, `list ${m.id}: sendable counter`);
  }
  const kept = await one(sql`select coalesce(sum(subscribers), 0) as n from subscriber_counts`);
  assert.equal(kept, await one(sql`select count(*) as n from subscribers`), 'subscriber counter');
}

async function historyOf(subscriberId: number) {
  const res = await t.inject({ method: 'GET', url: `/api/v2/subscribers/${subscriberId}/history`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().items as { summary: string; detail: string; system_info: string | null }[];
}

describe('POST /api/v2/subscribers/bulk by ids', () => {
  test('add_to_list: done in the answer, blacklisted left out, members already there unchanged, history written', async () => {
    const list = await createList(t.db, { name: 'Ids list' });
    const ann = await createSubscriber(t.db, { email: 'ann@ids.example', confirmed: true });
    const bob = await createSubscriber(t.db, { email: 'bob@ids.example', confirmed: true });
    const barred = await createSubscriber(t.db, { email: 'barred@ids.example', confirmed: true, blacklisted: true });
    await subscribe(t.db, list.id, bob.id);
    const res = await bulk({ action: 'add_to_list', ids: [ann.id, bob.id, barred.id, ann.id], list_id: list.id });
    assert.equal(res.statusCode, 200, res.body);
    const job = res.json();
    assert.deepEqual(job, {
      id: job.id,
      action: 'add_to_list',
      state: 'done',
      list_id: list.id,
      total: 3,
      done: 3,
      affected: 1,
      error: null,
      created_at: atom(job.created_at),
      finished_at: atom(job.finished_at),
    });
    assert.equal(await memberCount(list.id), 2);
    const entries = await historyOf(ann.id);
    assert.deepEqual(entries.at(-1), {
      ...entries.at(-1),
      summary: `List change by ${login}`,
      detail: `Joined list "Ids list" (#${list.id}) (bulk action)`,
      system_info: 'User-Agent: bulk-test',
    });
    assert.equal((await historyOf(bob.id)).length, 0, 'already a member: nothing changed, nothing written');
    await assertCountersExact();
  });

  test('blacklist with a reason: flag, blacklist entry with the reason, history, a subscriber.blacklisted webhook each', async () => {
    const hook = await t.inject({
      method: 'POST',
      url: '/api/v2/webhooks',
      headers,
      payload: { url: 'http://127.0.0.1:9/hook', events: ['subscriber.blacklisted'] },
    });
    assert.equal(hook.statusCode, 201, hook.body);
    const list = await createList(t.db, { name: 'Sendable' });
    const a = await createSubscriber(t.db, { email: 'a@black.example', confirmed: true });
    const b = await createSubscriber(t.db, { email: 'b@black.example', confirmed: true });
    await subscribe(t.db, list.id, a.id);
    await subscribe(t.db, list.id, b.id);
    const res = await bulk({ action: 'blacklist', ids: [a.id, b.id], reason: 'Asked by phone' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().affected, 2);
    const info = await t.inject({ method: 'GET', url: '/api/v2/blacklist/info/a@black.example', headers });
    assert.equal(info.json().reason, 'Asked by phone');
    const sub = await t.inject({ method: 'GET', url: `/api/v2/subscribers/${b.id}`, headers });
    assert.equal(sub.json().blacklisted, true);
    assert.equal(sub.json().history.at(-1).summary, `Blacklisted by ${login}`);
    assert.equal(sub.json().history.at(-1).detail, 'blacklisted = true *changed* from false (bulk action); reason: Asked by phone');
    const events = await queryRows(
      t.db,
      sql`select payload->'subscriber'->>'email' as email from webhook_events where type = 'subscriber.blacklisted' order by 1`,
      (r) => String(r.email),
    );
    assert.deepEqual(events, ['a@black.example', 'b@black.example']);
    await t.db.execute(sql`delete from webhook_endpoints`);
    await assertCountersExact();
  });

  test('remove_from_list and delete by ids; the list and subscriber counters follow', async () => {
    const list = await createList(t.db, { name: 'Leaving' });
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const s = await createSubscriber(t.db, { email: `leave-${i}@ids.example`, confirmed: true });
      await subscribe(t.db, list.id, s.id);
      ids.push(s.id);
    }
    const removed = await bulk({ action: 'remove_from_list', ids: ids.slice(0, 2), list_id: list.id });
    assert.equal(removed.statusCode, 200, removed.body);
    assert.equal(removed.json().affected, 2);
    assert.equal(await memberCount(list.id), 2);
    assert.equal((await historyOf(ids[0]!)).at(-1)!.detail, `Left list "Leaving" (#${list.id}) (bulk action)`);
    const before = (await t.inject({ method: 'GET', url: '/api/v2/subscribers?limit=1', headers })).json().pagination.total;
    const deleted = await bulk({ action: 'delete', ids: [ids[2]!, ids[3]!, 2_000_000_000] });
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.deepEqual([deleted.json().total, deleted.json().done, deleted.json().affected], [3, 3, 2]);
    assert.equal(await memberCount(list.id), 0);
    const afterTotal = (await t.inject({ method: 'GET', url: '/api/v2/subscribers?limit=1', headers })).json().pagination.total;
    assert.equal(afterTotal, before - 2);
    assert.equal((await t.inject({ method: 'GET', url: `/api/v2/subscribers/${ids[2]}`, headers })).statusCode, 404);
    await assertCountersExact();
  });
});

describe('POST /api/v2/subscribers/bulk by filter (every match, in the background)', () => {
  test('add_to_list of every match: 202, progress polled to done, counts exact', async () => {
    const list = await createList(t.db, { name: 'Everyone at many' });
    const filter = { find_column: 'email', find_value: '@many.example' };
    const listed = await t.inject({ method: 'GET', url: '/api/v2/subscribers?find_column=email&find_value=@many.example&limit=1', headers });
    assert.equal(listed.json().pagination.total, MANY, 'the list view and the bulk action see the same matches');
    const res = await bulk({ action: 'add_to_list', filter, list_id: list.id });
    assert.equal(res.statusCode, 202, res.body);
    assert.equal(res.json().state, 'running');
    assert.equal(res.json().total, MANY);
    const job = await finished(res.json().id);
    assert.deepEqual([job.state, job.total, job.done, job.affected, job.error], ['done', MANY, MANY, MANY, null]);
    assert.equal(await memberCount(list.id), MANY);
    const someone = await one(sql`select id as n from subscribers where email = 'many-1234@many.example'`);
    assert.equal((await historyOf(someone)).at(-1)!.summary, `List change by ${login}`);
    await assertCountersExact();

    // The same list as the filter: the unconfirmed members leave it (every fifth).
    const removed = await bulk({ action: 'remove_from_list', filter: { list_id: list.id, is_confirmed: 'false' }, list_id: list.id });
    assert.equal(removed.statusCode, 200, removed.body);
    assert.equal(removed.json().affected, MANY / 5);
    assert.equal(await memberCount(list.id), MANY - MANY / 5);
    await assertCountersExact();
  });

  test('blacklist then delete every match of a filter; the counters stay exact', async () => {
    const list = await createList(t.db, { name: 'Doomed' });
    await t.db.execute(sql`
      insert into subscribers (email, unique_id, confirmed)
      select 'doomed-' || n || '@doomed.example', md5('doomed' || n), true from generate_series(1, 1100) n`);
    await t.db.execute(sql`
      insert into subscriptions (list_id, subscriber_id) select ${list.id}, id from subscribers where email like '%@doomed.example'`);
    const filter = { find_column: 'email', find_value: '@doomed.example' };
    const black = await bulk({ action: 'blacklist', filter });
    assert.equal(black.statusCode, 202, black.body);
    const blackJob = await finished(black.json().id);
    assert.deepEqual([blackJob.state, blackJob.done, blackJob.affected], ['done', 1100, 1100]);
    assert.equal(await one(sql`select count(*) as n from blacklist where email like '%@doomed.example'`), 1100);
    assert.equal(
      await one(sql`select count(*) as n from blacklist where email like '%@doomed.example' and reason = 'Blacklisted by an administrator'`),
      1100,
    );
    await assertCountersExact();

    const gone = await bulk({ action: 'delete', filter: { ...filter, is_blacklisted: 'true' } });
    assert.equal(gone.statusCode, 202, gone.body);
    const goneJob = await finished(gone.json().id);
    assert.deepEqual([goneJob.state, goneJob.done, goneJob.affected], ['done', 1100, 1100]);
    assert.equal(await one(sql`select count(*) as n from subscribers where email like '%@doomed.example'`), 0);
    assert.equal(await memberCount(list.id), 0);
    await assertCountersExact();
  });

  test('an attribute filter selects what the list view shows with it', async () => {
    const def = await t.inject({ method: 'POST', url: '/api/v2/attributes', headers, payload: { name: 'City', type: 'textline' } });
    assert.equal(def.statusCode, 201, def.body);
    const city = def.json().id;
    const [x, y] = [await createSubscriber(t.db, { email: 'x@city.example' }), await createSubscriber(t.db, { email: 'y@city.example' })];
    for (const [s, value] of [
      [x, 'Berlin'],
      [y, 'Bern'],
    ] as const) {
      const set = await t.inject({ method: 'POST', url: `/api/v2/subscribers/${s.id}/attributes/${city}`, headers, payload: { value } });
      assert.equal(set.statusCode, 201, set.body);
    }
    const page = await t.inject({ method: 'GET', url: `/api/v2/subscribers?attribute_id=${city}&attribute_value=ber`, headers });
    assert.deepEqual(
      page.json().items.map((s: { email: string }) => s.email),
      ['x@city.example', 'y@city.example'],
    );
    const exact = await t.inject({
      method: 'GET',
      url: `/api/v2/subscribers?attribute_id=${city}&attribute_value=BERN&attribute_match=equals`,
      headers,
    });
    assert.deepEqual(
      exact.json().items.map((s: { email: string }) => s.email),
      ['y@city.example'],
    );
    const list = await createList(t.db, { name: 'Bern only' });
    const res = await bulk({
      action: 'add_to_list',
      filter: { attribute_id: city, attribute_value: 'bern', attribute_match: 'equals' },
      list_id: list.id,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().affected, 1);
    const members = await t.inject({ method: 'GET', url: `/api/v2/lists/${list.id}/subscribers`, headers });
    assert.deepEqual(
      members.json().items.map((s: { email: string }) => s.email),
      ['y@city.example'],
    );
    const unknown = await t.inject({ method: 'GET', url: '/api/v2/subscribers?attribute_id=999999&attribute_value=x', headers });
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), { message: 'Attribute definition not found.' });
  });
});

describe('POST /api/v2/subscribers/bulk/export', () => {
  test('the CSV of the ids given, and of every match of a filter', async () => {
    const a = await createSubscriber(t.db, { email: 'a@export.example', confirmed: true });
    const b = await createSubscriber(t.db, { email: 'b@export.example', confirmed: false });
    const byIds = await t.inject({
      method: 'POST',
      url: '/api/v2/subscribers/bulk/export',
      headers,
      payload: { ids: [b.id, a.id], columns: ['email', 'confirmed'] },
    });
    assert.equal(byIds.statusCode, 200, byIds.body);
    assert.equal(byIds.headers['content-type'], 'text/csv; charset=utf-8');
    assert.match(String(byIds.headers['content-disposition']), /^attachment; filename=subscribers_export_\d{4}-\d{2}-\d{2}\.csv$/);
    assert.equal(byIds.body, 'email,confirmed\r\na@export.example,1\r\nb@export.example,0\r\n');
    const byFilter = await t.inject({
      method: 'POST',
      url: '/api/v2/subscribers/bulk/export',
      headers,
      payload: { filter: { find_column: 'email', find_value: '@many.example' }, columns: ['email'] },
    });
    assert.equal(byFilter.statusCode, 200, byFilter.body);
    const lines = byFilter.body.trimEnd().split('\r\n');
    assert.equal(lines.length, MANY + 1);
    assert.equal(lines[1], 'many-1@many.example');
  });
});

describe('refusals', () => {
  test('an administrator without the subscribers privilege gets 403 and nothing changes', async () => {
    const other = (await t.adminWithSession({ superUser: false, privileges: { campaigns: true } })).headers;
    const s = await createSubscriber(t.db, { email: 'kept@refuse.example' });
    const res = await bulk({ action: 'delete', ids: [s.id] }, other);
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), { message: 'You are not allowed to change subscribers in bulk.' });
    assert.equal((await t.inject({ method: 'GET', url: `/api/v2/subscribers/${s.id}`, headers })).statusCode, 200);
    const job = await t.inject({ method: 'GET', url: '/api/v2/bulk-jobs/1', headers: other });
    assert.equal(job.statusCode, 403);
  });

  test('a list another administrator owns is refused (403), as adding members one by one is', async () => {
    const owner = await t.adminWithSession({ privileges: { subscribers: true } });
    const theirs = await createList(t.db, { name: 'Theirs', ownerId: owner.admin.id });
    const s = await createSubscriber(t.db, { email: 'x@owned.example' });
    const res = await bulk({ action: 'add_to_list', ids: [s.id], list_id: theirs.id });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), { message: 'Access denied.' });
  });

  test('bad requests are 422 naming the field, and nothing is started', async () => {
    const list = await createList(t.db, { name: 'Unused' });
    const jobsBefore = await one(sql`select count(*) as n from bulk_jobs`);
    const cases: [unknown, Record<string, string[]>][] = [
      [{ action: 'delete' }, { ids: ['Give ids (a list of subscriber ids) or filter (every match of a filter): no subscribers were selected.'] }],
      [{ action: 'delete', ids: [1], filter: {} }, { ids: ['Give either ids or filter, not both: which subscribers to act on is ambiguous.'] }],
      [{ action: 'add_to_list', ids: [1], list_id: 999_999 }, { list_id: ['There is no list with id 999999.'] }],
      [{ action: 'add_to_list', ids: [1] }, { list_id: ['The action add_to_list needs list_id: the list to act on.'] }],
      [{ action: 'delete', filter: { list_id: 999_999 } }, { 'filter.list_id': ['There is no list with id 999999.'] }],
      [
        { action: 'delete', filter: { attribute_id: 999_999, attribute_value: 'x' } },
        { 'filter.attribute_id': ['There is no attribute with id 999999.'] },
      ],
    ];
    for (const [payload, errors] of cases) {
      const res = await bulk(payload);
      assert.equal(res.statusCode, 422, `${JSON.stringify(payload)}: ${res.body}`);
      assert.deepEqual(res.json(), { message: 'Validation failed', errors }, JSON.stringify(payload));
    }
    const unknownAction = await bulk({ action: 'explode', ids: [1], list_id: list.id });
    assert.equal(unknownAction.statusCode, 422);
    assert.match(JSON.stringify(unknownAction.json().errors), /Allowed values: add_to_list, remove_from_list, blacklist, delete/);
    const empty = await bulk({ action: 'delete', ids: [] });
    assert.equal(empty.statusCode, 422);
    const badFilter = await bulk({ action: 'delete', filter: { is_confirmed: 'maybe' } });
    assert.equal(badFilter.statusCode, 422);
    assert.equal(await one(sql`select count(*) as n from bulk_jobs`), jobsBefore);
    const missing = await t.inject({ method: 'GET', url: '/api/v2/bulk-jobs/999999', headers });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), { message: 'Bulk job not found.' });
    const exportNeither = await t.inject({ method: 'POST', url: '/api/v2/subscribers/bulk/export', headers, payload: {} });
    assert.equal(exportNeither.statusCode, 422);
  });
});
