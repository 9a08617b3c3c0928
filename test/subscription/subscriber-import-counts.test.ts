import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { blacklist } from '../../src/db/schema/index.js';
import { IMPORT_BATCH_SIZE } from '../../src/subscription/subscriber-import.service.js';
import { createList } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { multipart } from '../multipart.js';
import { sendableCampaign } from '../sending/send-fixtures.js';

/*
 * The counters the import's triggers keep (routines 013 and 014, their plans set for imports in 085), after imports
 * of several batches, updates by a second import and deletions: each must equal what counting the rows again gives,
 * and the send confirmation's audience (GET /campaigns/{id}/audience) must name that number.
 */

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

function upload(csv: string, fields: Record<string, string>) {
  const body = multipart([
    ...Object.entries(fields).map(([name, value]) => ({ name, value })),
    { name: 'file', filename: 'subscribers.csv', content: csv, contentType: 'text/csv' },
  ]);
  return t.inject({ method: 'POST', url: '/api/v2/subscribers/import', headers: { ...headers, ...body.headers }, payload: body.payload });
}

/** Sendable members of the list counted row by row: the rule the counters keep. */
async function sendableByRule(listId: number): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    t.db,
    sql`select count(*)::int as n from subscriptions m join subscribers s on s.id = m.subscriber_id
        where m.list_id = ${listId} and s.confirmed and not s.blacklisted and not s.disabled
          and not exists (select 1 from blacklist b where lower(b.email) = lower(s.email))`,
  );
  return row!.n;
}

/** The analytics rollups against a recount of the subscribers: rows that differ (none when exact). */
async function rollupDifferences(): Promise<unknown[]> {
  return queryRows(
    t.db,
    sql`(select 'domain' as rollup, domain as key, sum(confirmed)::int as a, sum(unconfirmed)::int as b, sum(blacklisted)::int as c
         from subscriber_domain_counts group by domain having sum(confirmed + unconfirmed + blacklisted) <> 0
         except
         select 'domain', lower(split_part(email, '@', 2)), count(*) filter (where not blacklisted and confirmed)::int,
                count(*) filter (where not blacklisted and not confirmed)::int, count(*) filter (where blacklisted)::int
         from subscribers where strpos(email, '@') > 0 group by 2)`,
    (row) => row,
  );
}

/** The top local parts as the analytics answer them (a snapshot since issue 24) against a recount. */
async function localPartDifferences(): Promise<{ answered: unknown; counted: unknown }> {
  const res = await t.inject({ method: 'GET', url: '/api/v2/analytics/local-parts/top?limit=100', headers });
  assert.equal(res.statusCode, 200, res.body);
  const answered = res.json() as { local_parts: { local_part: string; count: number }[]; stale: boolean };
  const counted = await queryRows(
    t.db,
    sql`select lower(split_part(email, '@', 1)) as local_part, count(*)::int as count from subscribers
        where strpos(email, '@') > 0 group by 1 order by 2 desc, 1 limit 100`,
    (row) => ({ local_part: row.local_part, count: row.count }),
  );
  return {
    answered: { stale: answered.stale, items: answered.local_parts.map(({ local_part, count }) => ({ local_part, count })) },
    counted: { stale: false, items: counted },
  };
}

describe('counters after imports', () => {
  test('sendable members and analytics rollups stay exact through a multi-batch import, a re-import and deletions', async () => {
    const list = await createList(t.db, { name: 'Counted import' });
    const campaign = await sendableCampaign(t.db, [list.id]);
    const rows = IMPORT_BATCH_SIZE * 2 + 300; // three batches
    // Every 4th unconfirmed, every 10th blacklisted by its column, one address in the blacklist table beforehand,
    // and local parts shared across domains (the rollups count per key, not per row).
    await t.db.insert(blacklist).values({ email: 'Member-7@D1.example' });
    const lines = ['email,confirmed,blacklisted'];
    for (let i = 1; i <= rows; i++) {
      const local = i % 50 === 0 ? 'info' : `member-${i}`;
      lines.push(`${local}@d${i % 3}.example,${i % 4 === 0 ? 0 : 1},${i % 10 === 0 ? 1 : 0}`);
    }
    const csv = lines.join('\n');

    const imported = await upload(csv, { list_id: String(list.id), skip_invalid_emails: 'true' });
    assert.equal(imported.statusCode, 200, imported.body);
    const expectExact = async (step: string) => {
      const count = await sendableByRule(list.id);
      const audience = await t.inject({ method: 'GET', url: `/api/v2/campaigns/${campaign.id}/audience`, headers });
      // Imported without an html_email column, everyone gets HTML mail (SUBSCRIBER_HTML_DEFAULT, issue 25): none text only.
      assert.deepEqual(audience.json(), { count, lists: 1, text_only: 0 }, `the audience after ${step}`);
      assert.deepEqual(await rollupDifferences(), [], `the rollups after ${step}`);
      const parts = await localPartDifferences();
      assert.deepEqual(parts.answered, parts.counted, `the top local parts after ${step}`);
      return count;
    };
    // Rows not blacklisted either way (the table's address is `member-7@d1.example`), confirmed ones only.
    let expected = 0;
    for (let i = 1; i <= rows; i++) if (i % 4 !== 0 && i % 10 !== 0 && i !== 7) expected++;
    assert.equal(await expectExact('the import'), expected);

    // A second import confirms everyone (update_existing): the unconfirmed quarter joins the count.
    const confirmAll = ['email,confirmed', ...lines.slice(1).map((l) => `${l.split(',')[0]},1`)].join('\n');
    const updated = await upload(confirmAll, { list_id: String(list.id), update_existing: 'true' });
    assert.equal(updated.statusCode, 200, updated.body);
    expected = 0;
    for (let i = 1; i <= rows; i++) if (i % 10 !== 0 && i !== 7) expected++;
    assert.equal(await expectExact('confirming them all by a second import'), expected);

    // Deleting subscribers (some shared local parts among them) and lifting the blacklist entry.
    const gone = await queryRows<{ id: number }>(
      t.db,
      sql`select id from subscribers where lower(email) in ('info@d2.example', 'member-1@d1.example', 'member-2@d2.example')`,
    );
    assert.equal(gone.length, 3);
    for (const { id } of gone) {
      const deleted = await t.inject({ method: 'DELETE', url: `/api/v2/subscribers/${id}`, headers });
      assert.ok(deleted.statusCode < 300, deleted.body);
    }
    await t.db.delete(blacklist).where(sql`lower(${blacklist.email}) = 'member-7@d1.example'`);
    await expectExact('deletions and lifting a blacklist entry');
  });
});
