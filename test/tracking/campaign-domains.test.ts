import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { campaignDomainSnapshots } from '../../src/db/schema/index.js';
import { claimDomainRefresh } from '../../src/tracking/campaign-domains.repository.js';
import { createBounce, createCampaign, createDelivery, createSubscriber } from '../factories.js';
import { ATOM, startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

const DAY = 86_400_000;
const domains = (id: number | string, query = '', h = headers) =>
  t.inject({ method: 'GET', url: `/api/v2/campaigns/${id}/domains${query}`, headers: h });

/** Asks until the background refresh has left a fresh snapshot (the request itself never waits for it). */
async function settled(id: number, query = '') {
  for (let i = 0; i < 100; i++) {
    const body = (await domains(id, query)).json();
    if (!body.stale) return body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no fresh snapshot after 5 s');
}

/** A subscriber at `domain`, with a local part unique to this run. */
const at = (domain: string) => createSubscriber(t.db, { email: `p${randomBytes(6).toString('hex')}@${domain}` });

/** A sent campaign with records at four domains; figures per domain in the comments. */
async function campaignAtFourDomains() {
  const campaign = await createCampaign(t.db, { status: 'sent', sentAt: new Date() });
  const other = await createCampaign(t.db, { status: 'sent', sentAt: new Date() });
  // alpha.example: 3 recipients, 2 sent, 1 failed, 1 opened (a person), 1 clicked, 1 bounced.
  const a1 = await at('alpha.example');
  await createDelivery(t.db, campaign.id, a1.id, { firstOpenedAt: new Date(), firstHumanOpenedAt: new Date(), firstClickedAt: new Date() });
  await createBounce(t.db, { campaignId: campaign.id, subscriberId: a1.id, messageId: `<b-${randomBytes(6).toString('hex')}@x>` });
  const a2 = await at('ALPHA.example');
  await createDelivery(t.db, campaign.id, a2.id, { firstOpenedAt: new Date() }); // a machine's open only
  const a3 = await at('alpha.example');
  await createDelivery(t.db, campaign.id, a3.id, { status: 'failed', sentAt: null });
  // beta.example: 2 recipients, 1 sent, 1 still queued, 1 clicked; its bounce is another campaign's.
  const b1 = await at('beta.example');
  await createDelivery(t.db, campaign.id, b1.id, { firstClickedAt: new Date() });
  await createBounce(t.db, { campaignId: other.id, subscriberId: b1.id, messageId: `<b-${randomBytes(6).toString('hex')}@x>` });
  const b2 = await at('beta.example');
  await createDelivery(t.db, campaign.id, b2.id, { status: 'queued', sentAt: null });
  // gamma.example and aaa.example: 1 recipient each (by name at equal size); gamma's bounced twice, counted once.
  const g1 = await at('gamma.example');
  await createDelivery(t.db, campaign.id, g1.id);
  for (let i = 0; i < 2; i++) {
    await createBounce(t.db, { campaignId: campaign.id, subscriberId: g1.id, messageId: `<b-${randomBytes(6).toString('hex')}@x>` });
  }
  const z1 = await at('aaa.example');
  await createDelivery(t.db, campaign.id, z1.id, { status: 'skipped', sentAt: null });
  // Another campaign's recipient elsewhere: not this campaign's domain.
  await createDelivery(t.db, other.id, (await at('delta.example')).id);
  return campaign;
}

describe('GET /api/v2/campaigns/{messageId}/domains', () => {
  test('the first request starts a refresh and answers at once; the snapshot then has every figure', async () => {
    const campaign = await campaignAtFourDomains();
    const first = await domains(campaign.id);
    assert.equal(first.statusCode, 200);
    assert.deepEqual(first.json(), { computed_at: null, stale: true, items: [] });
    const [claim] = await t.db.select().from(campaignDomainSnapshots).where(eq(campaignDomainSnapshots.campaignId, campaign.id));
    assert.ok(claim && (claim.refreshingSince !== null || claim.computedAt !== null), 'a refresh was claimed');

    const body = await settled(campaign.id);
    assert.match(body.computed_at, ATOM);
    assert.deepEqual(body, {
      computed_at: body.computed_at,
      stale: false,
      items: [
        { domain: 'alpha.example', recipients: 3, sent: 2, failed: 1, opened: 1, clicked: 1, bounced: 1 },
        { domain: 'beta.example', recipients: 2, sent: 1, failed: 0, opened: 0, clicked: 1, bounced: 0 },
        { domain: 'aaa.example', recipients: 1, sent: 0, failed: 0, opened: 0, clicked: 0, bounced: 0 },
        { domain: 'gamma.example', recipients: 1, sent: 1, failed: 0, opened: 0, clicked: 0, bounced: 1 },
      ],
    });
    const two = await domains(campaign.id, '?limit=2');
    assert.deepEqual(
      two.json().items.map((d: { domain: string }) => d.domain),
      ['alpha.example', 'beta.example'],
    );
  });

  test('a snapshot older than 10 minutes is answered as stale and refreshed; an old sent campaign’s never is', async () => {
    const campaign = await campaignAtFourDomains();
    await settled(campaign.id);
    const old = new Date(Date.now() - 11 * 60_000);
    await t.db.update(campaignDomainSnapshots).set({ computedAt: old }).where(eq(campaignDomainSnapshots.campaignId, campaign.id));
    await createDelivery(t.db, campaign.id, (await at('delta.example')).id);
    const stale = (await domains(campaign.id)).json();
    assert.equal(stale.stale, true);
    assert.equal(stale.items.length, 4, 'the old figures, until the refresh commits');
    const fresh = await settled(campaign.id);
    assert.deepEqual(fresh.items.length, 5);
    assert.deepEqual(fresh.items[3], { domain: 'delta.example', recipients: 1, sent: 1, failed: 0, opened: 0, clicked: 0, bounced: 0 });

    // Sent 30 days ago, snapshot taken 10 days after: settled, whatever its age.
    const settledCampaign = await createCampaign(t.db, { status: 'sent', sentAt: new Date(Date.now() - 30 * DAY) });
    const taken = new Date(Date.now() - 20 * DAY);
    await t.db.insert(campaignDomainSnapshots).values({ campaignId: settledCampaign.id, computedAt: taken });
    assert.deepEqual((await domains(settledCampaign.id)).json(), {
      computed_at: taken.toISOString().replace(/\.\d{3}Z$/, '+00:00'),
      stale: false,
      items: [],
    });
    const [after] = await t.db.select().from(campaignDomainSnapshots).where(eq(campaignDomainSnapshots.campaignId, settledCampaign.id));
    assert.equal(after!.refreshingSince, null, 'no refresh started');
  });

  test('one refresh at a time: concurrent claims, one winner; a running refresh is not started again', async () => {
    const campaign = await createCampaign(t.db, { status: 'inprocess' });
    const claims = await Promise.all(Array.from({ length: 5 }, () => claimDomainRefresh(t.db, campaign.id)));
    assert.deepEqual(claims.filter(Boolean).length, 1);
    // Someone else's refresh is running: the request answers stale and leaves it be.
    const since = (await t.db.select().from(campaignDomainSnapshots).where(eq(campaignDomainSnapshots.campaignId, campaign.id)))[0]!.refreshingSince;
    assert.deepEqual((await domains(campaign.id)).json(), { computed_at: null, stale: true, items: [] });
    const [row] = await t.db.select().from(campaignDomainSnapshots).where(eq(campaignDomainSnapshots.campaignId, campaign.id));
    assert.deepEqual([row!.refreshingSince, row!.computedAt], [since, null]);
    // A claim older than the timeout (its process died) is taken over.
    await t.db
      .update(campaignDomainSnapshots)
      .set({ refreshingSince: new Date(Date.now() - 6 * 60_000) })
      .where(eq(campaignDomainSnapshots.campaignId, campaign.id));
    const taken = await settled(campaign.id);
    assert.deepEqual(taken, { computed_at: taken.computed_at, stale: false, items: [] });
    assert.match(taken.computed_at, ATOM);
  });

  test('authentication, the statistics privilege, the campaign, then the limit (1..100, never clamped)', async () => {
    const campaign = await createCampaign(t.db);
    const anonymous = await t.inject({ method: 'GET', url: `/api/v2/campaigns/${campaign.id}/domains` });
    assert.deepEqual([anonymous.statusCode, anonymous.json()], [403, { message: 'No valid session key was provided as basic auth password.' }]);
    const limited = await t.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    const denied = await domains(campaign.id, '', limited.headers);
    assert.deepEqual([denied.statusCode, denied.json()], [403, { message: 'You are not allowed to access statistics.' }]);
    const statistician = await t.adminWithSession({ superUser: false, privileges: { statistics: true } });
    assert.equal((await domains(campaign.id, '', statistician.headers)).statusCode, 200);
    const missing = await domains(999999);
    assert.deepEqual([missing.statusCode, missing.json()], [404, { message: 'Campaign not found.' }]);
    // The project's answers for a malformed path (no such route) and for a bad parameter (422, naming it).
    const notNumber = await domains('abc');
    assert.deepEqual(
      [notNumber.statusCode, notNumber.json()],
      [404, { message: 'No route found for "GET http://localhost:80/api/v2/campaigns/abc/domains"' }],
    );
    const invalid = (message: string) => [422, { message: 'Validation failed', errors: { limit: [message] } }];
    const answer = async (query: string) => {
      const res = await domains(campaign.id, query);
      return [res.statusCode, res.json()];
    };
    assert.deepEqual(await answer('?limit=0'), invalid('This value should be positive.'));
    assert.deepEqual(await answer('?limit=101'), invalid('This value should be less than or equal to 100.'));
    assert.deepEqual(await answer('?limit=ten'), invalid('This value should be of type integer.'));
    assert.equal((await domains(campaign.id, '?limit=100')).statusCode, 200);
  });
});
