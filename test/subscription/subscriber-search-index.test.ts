import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('the e-mail substring search can be answered from the trigram index, on both databases', async () => {
  await createSubscriber(t.db, { email: 'needle.person@example.com' });
  // The planner would rightly scan a tiny table; with scans off it must show the index serves `ILIKE '%…%'`.
  const plan = await t.db.transaction(async (tx) => {
    await tx.execute(sql`set local enable_seqscan = off`);
    return queryRows<{ 'QUERY PLAN': string }>(tx, sql`explain select id from subscribers where email ilike ${'%edle.pers%'}`);
  });
  assert.match(plan.map((r) => r['QUERY PLAN']).join('\n'), /subscribers_email_trgm_idx/);

  const { headers } = await t.adminWithSession();
  const res = await t.inject({ method: 'GET', url: '/api/v2/subscribers?find_column=email&find_value=EDLE.PERS', headers });
  assert.equal(res.statusCode, 200);
  const body = res.json() as { items: { email: string }[]; pagination: { total: number } };
  assert.deepEqual(
    body.items.map((s) => s.email),
    ['needle.person@example.com'],
  );
  assert.equal(body.pagination.total, 1);
});
