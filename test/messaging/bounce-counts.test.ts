import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq, sql } from 'drizzle-orm';
import { loadConfig } from '../../src/config.js';
import { queryRows } from '../../src/db/client.js';
import { bounceCountIncrements, bounceRules, campaignCounters, campaigns } from '../../src/db/schema/index.js';
import { BounceCounts } from '../../src/messaging/bounce-counts.js';
import { consecutiveWalk, decideBounce } from '../../src/messaging/bounce-decision.js';
import { foldBounceCounts as foldInDatabase, matchBounce, writeBounce } from '../../src/messaging/bounce-processing.repository.js';
import { foldBounceCounts } from '../../src/messaging/bounce-processing.js';
import { createCampaign, createDelivery, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { dsn, originalMail } from './bounce-samples.js';

/*
 * The shared bounce figures (campaigns.bounce_count, campaign_counters.bounces, bounce_rules.match_count) are not
 * written by the bounce's own transaction, which commits synchronously, but folded in from appended increments: on a
 * timer in the process that recorded the bounce, at start (what a crashed process left) and at a graceful stop.
 */

const TOKEN = 'counts-test-token-0123456789';
let t: TestApp;
let admin: Record<string, string>;
before(async () => {
  t = await startTestApp({ bounces: { ...loadConfig({}).bounces, inboundToken: TOKEN } });
  admin = (await t.adminWithSession()).headers;
});
after(() => t.close());

/** A bounce of a sent campaign's delivery, over HTTP (202); the diagnostic can be made to match a rule. */
async function bounceOf(campaignId: number, diagnostic?: string) {
  const subscriber = await createSubscriber(t.db, { confirmed: true });
  const delivery = await createDelivery(t.db, campaignId, subscriber.id);
  const original = await originalMail({ to: subscriber.email, deliveryId: delivery.id });
  const res = await t.inject({
    method: 'POST',
    url: '/api/v2/bounces/inbound',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'message/rfc822' },
    payload: dsn({ original, recipient: subscriber.email, status: '4.2.2', ...(diagnostic ? { diagnostic } : {}) }),
  });
  assert.equal(res.statusCode, 202, res.body);
  return res.json();
}

/** What the API shows: the campaign's bounce count, its counters row, and the rule's match count. */
async function figures(campaignId: number, ruleId?: number) {
  const campaign = (await t.inject({ method: 'GET', url: `/api/v2/campaigns/${campaignId}`, headers: admin })).json();
  const [counter] = await t.db.select().from(campaignCounters).where(eq(campaignCounters.campaignId, campaignId));
  const rule = ruleId === undefined ? undefined : (await t.inject({ method: 'GET', url: `/api/v2/bounces/regex/${ruleId}`, headers: admin })).json();
  return { campaign: campaign.message_metadata.bounce_count, counter: counter?.bounces ?? 0, rule: rule?.count };
}

async function createRule(marker: string) {
  const res = await t.inject({
    method: 'POST',
    url: '/api/v2/bounces/regex',
    headers: admin,
    payload: { regex: `/${marker}/`, action: 'unconfirmuser', status: 'active' },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id as number;
}

const pending = async () => (await t.db.select().from(bounceCountIncrements)).length;

async function until(check: () => Promise<boolean>, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

describe('durability', () => {
  test('a bounce commits synchronously: its write never turns synchronous_commit off', async () => {
    // record_bounce (PL/pgSQL, gone with issue 16) once did, locally; the write is now one statement of its own.
    const campaign = await createCampaign(t.db, { status: 'sent' });
    const subscriber = await createSubscriber(t.db, { confirmed: true });
    const delivery = await createDelivery(t.db, campaign.id, subscriber.id);
    const setting = async () => (await queryRows<{ s: string }>(t.db, sql`select current_setting('synchronous_commit') as s`))[0]!.s;
    const before = await setting();
    const returned = { deliveryId: delivery.id, campaignId: null, subscriberUid: null, messageId: null, foundIn: 'part' as const };
    const facts = { kind: 'soft' as const, label: 'Soft bounce', description: 'Soft bounce', rule: null, source: 'http' as const };
    const thresholds = { unconfirm: 3, blacklist: 5 };
    const { bounceId, match } = await matchBounce(t.ctx.db, { verpDeliveryId: null, returned, recipient: null }, consecutiveWalk(facts, thresholds));
    const texts = { key: `<sync-${delivery.id}@test.example>`, kind: 'soft', comment: 'Soft bounce', header: '', data: '' };
    assert.equal(await writeBounce(t.ctx.db, bounceId, texts, match, decideBounce(bounceId, facts, match, thresholds)), 'written');
    assert.equal(await setting(), before);
    assert.notEqual(before, 'off');
  });
});

describe('folding the counts', () => {
  test('a bounce appends an increment; the periodic fold adds it to all three figures within seconds', async () => {
    const marker = `fold-timer-${Math.random().toString(36).slice(2)}`;
    const ruleId = await createRule(marker);
    const campaign = await createCampaign(t.db, { status: 'sent' });
    const body = await bounceOf(campaign.id, `smtp; 452 4.2.2 ${marker}`);
    assert.equal(body.rule_id, ruleId);
    // No explicit fold: the process that recorded the bounce folds on its own (every 500 ms).
    const folded = await until(async () => {
      const now = await figures(campaign.id, ruleId);
      return now.campaign === 1 && now.counter === 1 && now.rule === 1;
    });
    assert.ok(folded, JSON.stringify(await figures(campaign.id, ruleId)));
    assert.deepEqual(await figures(campaign.id, ruleId), { campaign: 1, counter: 1, rule: 1 });
    assert.ok(await until(async () => (await pending()) === 0));
  });

  test('foldBounceCounts folds now, aggregating many bounces per campaign and rule; a second fold adds nothing', async () => {
    const marker = `fold-now-${Math.random().toString(36).slice(2)}`;
    const ruleId = await createRule(marker);
    const a = await createCampaign(t.db, { status: 'sent' });
    const b = await createCampaign(t.db, { status: 'sent' });
    await Promise.all([
      ...Array.from({ length: 4 }, () => bounceOf(a.id, `smtp; 452 4.2.2 ${marker}`)),
      ...Array.from({ length: 3 }, () => bounceOf(b.id)),
    ]);
    await foldBounceCounts(t.ctx);
    assert.equal(await pending(), 0);
    assert.deepEqual(await figures(a.id, ruleId), { campaign: 4, counter: 4, rule: 4 });
    assert.deepEqual(await figures(b.id), { campaign: 3, counter: 3, rule: undefined });
    assert.equal(await foldBounceCounts(t.ctx), 0);
    assert.deepEqual(await figures(a.id, ruleId), { campaign: 4, counter: 4, rule: 4 });
  });

  test('increments of a campaign or rule deleted meanwhile are dropped; the others still added', async () => {
    // The app's own timer has nothing to fold after this (no bounce is recorded by this test): only the call below.
    await foldBounceCounts(t.ctx);
    const kept = await createCampaign(t.db, { status: 'sent' });
    const gone = await createCampaign(t.db, { status: 'sent' });
    const [rule] = await t.db
      .insert(bounceRules)
      .values({ regex: `/gone-${gone.id}/`, regexHash: `gone-${gone.id}`, action: 'unconfirmuser' })
      .returning();
    await t.db.insert(bounceCountIncrements).values([
      { campaignId: kept.id, ruleId: rule!.id },
      { campaignId: gone.id, ruleId: null },
      { campaignId: null, ruleId: 2_000_000_000 },
    ]);
    await t.db.delete(campaigns).where(eq(campaigns.id, gone.id));
    assert.equal(await foldBounceCounts(t.ctx), 3);
    assert.equal(await pending(), 0);
    assert.deepEqual(await figures(kept.id, rule!.id), { campaign: 1, counter: 1, rule: 1 });
    assert.equal((await t.db.select().from(campaignCounters).where(eq(campaignCounters.campaignId, gone.id))).length, 0);
  });

  test('folds running at once (as several processes would) add each increment once', async () => {
    await foldBounceCounts(t.ctx);
    const campaign = await createCampaign(t.db, { status: 'sent' });
    await t.db.insert(bounceCountIncrements).values(Array.from({ length: 500 }, () => ({ campaignId: campaign.id })));
    // Straight to the database function: on PostgreSQL each call has a connection of its own.
    const taken = await Promise.all(Array.from({ length: 6 }, () => foldInDatabase(t.db)));
    assert.equal(
      taken.reduce((sum, n) => sum + n, 0),
      500,
    );
    assert.deepEqual(await figures(campaign.id), { campaign: 500, counter: 500, rule: undefined });
  });

  test('at start, a process folds what a crashed one left; at a graceful stop, what it recorded', async () => {
    await foldBounceCounts(t.ctx);
    const campaign = await createCampaign(t.db, { status: 'sent' });
    await t.db.insert(bounceCountIncrements).values([{ campaignId: campaign.id }, { campaignId: campaign.id }]);
    // A long interval: only the fold at start can have added these.
    const starting = new BounceCounts({ db: t.db, log: t.ctx.log, foldMs: 60_000 });
    starting.start();
    try {
      assert.ok(await until(async () => (await figures(campaign.id)).counter === 2), JSON.stringify(await figures(campaign.id)));
      assert.deepEqual(await figures(campaign.id), { campaign: 2, counter: 2, rule: undefined });
      await t.db.insert(bounceCountIncrements).values({ campaignId: campaign.id });
      starting.recorded();
    } finally {
      await starting.close();
    }
    assert.deepEqual(await figures(campaign.id), { campaign: 3, counter: 3, rule: undefined });
  });
});
