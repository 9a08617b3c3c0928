import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { and, asc, eq, gt } from 'drizzle-orm';
import { campaigns, listCampaigns, subscribePageData, subscribePages, subscriberHistory, subscriptions } from '../../src/db/schema/index.js';
import { encodePreferencesToken } from '../../src/sending/preferences-link.js';
import { encodeUnsubscribeToken, unsubscribeUrl } from '../../src/subscription/unsubscribe-token.js';
import { createCampaign, createList, createSubscriber, subscribe } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { countersOf, deliveryRows, freezeAudiences, parkOtherCampaigns, recipientsOf, sendableCampaign, withWorker } from './send-fixtures.js';

/*
 * The consent rule (docs/api.md "Consent"), end to end: subscribers leave through each of the three ways (the
 * unsubscribe link, one-click or its page; the preference centre; the subscribe-page API), then every kind of
 * campaign (lists, lists + segment, segment alone, a repeat, a requeue) is sent by a real worker into the SMTP sink,
 * and what arrived says who was reached.
 */

let t: TestApp;
let headers: Record<string, string>;
let adminId: number;
/** A segment matching every confirmed subscriber: as a campaign's whole audience, only those on some list get it. */
let everyone: number;
let n = 0;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

before(async () => {
  t = await startTestApp({ preferences: { linkDays: 365, clientLimit: 10_000 } });
  const session = await t.adminWithSession();
  headers = session.headers;
  adminId = session.admin.id;
  const res = await t.inject({
    method: 'POST',
    url: '/api/v2/segments',
    headers,
    payload: { name: 'Everyone confirmed', definition: { match: 'all', conditions: [{ type: 'confirmed', value: true }] } },
  });
  assert.equal(res.statusCode, 201, res.body);
  everyone = (res.json() as { id: number }).id;
});
after(() => t.close());

async function send(campaignId: number) {
  const res = await t.inject({ method: 'POST', url: `/api/v2/campaigns/${campaignId}/send`, headers });
  assert.equal(res.statusCode, 200, res.body);
}

async function deliver(...campaignIds: number[]) {
  await parkOtherCampaigns(t.db, ...campaignIds);
  await withWorker(t.ctx, { batchSize: 5 }, async (w) => {
    for (let i = 0; i < 6; i++) await w.runOnce();
  });
}

const listIdsOf = async (id: number) =>
  (
    await t.db.select({ id: subscriptions.listId }).from(subscriptions).where(eq(subscriptions.subscriberId, id)).orderBy(asc(subscriptions.listId))
  ).map((r) => r.id);

const historyOf = async (id: number) =>
  (await t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, id)).orderBy(asc(subscriberHistory.id))).map((r) => [
    r.summary,
    r.detail,
  ]);

/** The three ways to leave, each as a subscriber would take it. */
const ways = {
  async oneClick(campaignId: number, uniqueId: string) {
    const res = await t.inject({
      method: 'POST',
      url: new URL(unsubscribeUrl(t.ctx, uniqueId, campaignId)).pathname,
      headers: FORM,
      payload: 'List-Unsubscribe=One-Click',
    });
    assert.deepEqual([res.statusCode, res.body], [200, 'Unsubscribed.\n']);
  },
  async unsubscribePage(campaignId: number, uniqueId: string) {
    const res = await t.inject({
      method: 'POST',
      url: new URL(unsubscribeUrl(t.ctx, uniqueId, campaignId)).pathname,
      headers: FORM,
      payload: 'confirm=yes',
    });
    assert.equal(res.statusCode, 200, res.body);
  },
  /** The preference centre's list form with nothing ticked (`leave` = "leave everything" when `everything`). */
  async preferences(uniqueId: string, everything = false) {
    const token = encodePreferencesToken(t.ctx.secrets.linkToken, uniqueId);
    const res = await t.inject({
      method: 'POST',
      url: `/preferences/${token}`,
      headers: FORM,
      payload: everything ? 'action=leave' : 'action=lists',
    });
    assert.equal(res.statusCode, 303, res.body);
  },
  async subscribePageApi(pageId: number, email: string, uniqueId: string) {
    const token = encodeUnsubscribeToken(t.ctx.secrets.linkToken, { uniqueId, campaignId: 1 });
    const res = await t.inject({ method: 'DELETE', url: `/api/v2/public/subscribe-pages/${pageId}`, payload: { email, token } });
    assert.equal(res.statusCode, 204, res.body);
  },
};

/**
 * Two lists and seven people, on a domain of their own: `stay` (A and B) and `bOnly` (B) never leave; `oneClick`,
 * `page`, `prefs` and `api` were on A only and left it by each way after an earlier campaign to A; `noList` is
 * confirmed and on no list at all.
 */
async function scene() {
  const tag = `c${++n}`;
  const domain = `${tag}.consent.example`;
  const a = await createList(t.db, { name: `A ${tag}`, isPublic: true });
  const b = await createList(t.db, { name: `B ${tag}`, isPublic: true });
  const person = async (name: string, lists: number[]) => {
    const s = await createSubscriber(t.db, { email: `${name}@${domain}`, confirmed: true });
    for (const l of lists) await subscribe(t.db, l, s.id);
    return s;
  };
  const people = {
    stay: await person('stay', [a.id, b.id]),
    bOnly: await person('b-only', [b.id]),
    oneClick: await person('one-click', [a.id]),
    page: await person('page', [a.id]),
    prefs: await person('prefs', [a.id]),
    api: await person('api', [a.id]),
    noList: await person('no-list', []),
  };
  const earlier = await createCampaign(t.db, { status: 'sent' });
  await t.db.insert(listCampaigns).values({ campaignId: earlier.id, listId: a.id });
  const [page] = await t.db
    .insert(subscribePages)
    .values({ title: `Page ${tag}`, active: true, ownerId: adminId })
    .returning();
  await t.db.insert(subscribePageData).values({ pageId: page!.id, name: 'lists', data: String(a.id) });

  await ways.oneClick(earlier.id, people.oneClick.uniqueId);
  await ways.unsubscribePage(earlier.id, people.page.uniqueId);
  await ways.preferences(people.prefs.uniqueId);
  await ways.subscribePageApi(page!.id, people.api.email, people.api.uniqueId);
  for (const who of [people.oneClick, people.page, people.prefs, people.api]) assert.deepEqual(await listIdsOf(who.id), []);

  const got = (campaignId: number) => recipientsOf(t.smtp, campaignId).filter((r) => r.endsWith(`@${domain}`));
  const emails = (...names: (keyof typeof people)[]) => names.map((k) => people[k].email).sort();
  return { a, b, people, got, emails, domain };
}

describe('consent: who a campaign reaches after people left, by each way', () => {
  test('lists: only those still on the lists', async () => {
    const s = await scene();
    const c = await sendableCampaign(t.db, [s.a.id]);
    await send(c.id);
    await deliver(c.id);
    assert.deepEqual(s.got(c.id), s.emails('stay'));
  });

  test('lists + segment: the lists narrowed by the segment', async () => {
    const s = await scene();
    const c = await sendableCampaign(t.db, [s.a.id, s.b.id], { userSelection: `segment:${everyone}` });
    await send(c.id);
    await deliver(c.id);
    assert.deepEqual(s.got(c.id), s.emails('stay', 'bOnly'));
  });

  test('segment alone: its matches on some list — not those who left every list, not someone on none; the count agrees', async () => {
    const s = await scene();
    const c = await sendableCampaign(t.db, [], { userSelection: `segment:${everyone}` });
    const audience = await t.inject({ method: 'GET', url: `/api/v2/campaigns/${c.id}/audience`, headers });
    assert.equal(audience.statusCode, 200, audience.body);
    await send(c.id);
    await freezeAudiences(t.ctx);
    // The confirmation's count is the freeze's: every record made is counted and nothing else.
    assert.equal((audience.json() as { count: number }).count, (await deliveryRows(t.db, c.id)).length);
    await deliver(c.id);
    assert.deepEqual(s.got(c.id), s.emails('stay', 'bOnly'));
  });

  test('repeat: a one-click on the first occurrence of a segment-alone campaign keeps the next one away', async () => {
    const s = await scene();
    const embargo = new Date(Date.now() - 3600_000);
    const c = await sendableCampaign(t.db, [], {
      userSelection: `segment:${everyone}`,
      embargo,
      repeatInterval: 1440,
      repeatUntil: new Date(embargo.getTime() + 3 * 86_400_000),
      subject: `Digest ${s.domain}`,
    });
    await send(c.id);
    await deliver(c.id);
    assert.deepEqual(s.got(c.id), s.emails('stay', 'bOnly'));
    await ways.oneClick(c.id, s.people.bOnly.uniqueId);
    assert.deepEqual(await listIdsOf(s.people.bOnly.id), [], 'off every list: the campaign had no lists of its own');
    const [copy] = await t.db
      .select()
      .from(campaigns)
      .where(and(gt(campaigns.id, c.id), eq(campaigns.subject, `Digest ${s.domain}`)));
    assert.equal(copy?.status, 'submitted');
    await t.db
      .update(campaigns)
      .set({ embargo: new Date(Date.now() - 1000), repeatUntil: new Date(Date.now() + 60_000) })
      .where(eq(campaigns.id, copy!.id));
    await deliver(copy!.id);
    assert.deepEqual(s.got(copy!.id), s.emails('stay'));
  });

  test('requeue: the second pass freezes through the same rule (a newcomer gets it, one who joined and left does not)', async () => {
    const s = await scene();
    const c = await sendableCampaign(t.db, [s.a.id], { requeueInterval: 60, requeueUntil: new Date(Date.now() + 86_400_000) });
    await send(c.id);
    await deliver(c.id);
    assert.deepEqual(s.got(c.id), s.emails('stay'));
    assert.equal((await t.db.select().from(campaigns).where(eq(campaigns.id, c.id)))[0]!.status, 'submitted');
    const newcomer = await createSubscriber(t.db, { email: `newcomer@${s.domain}`, confirmed: true });
    const gone = await createSubscriber(t.db, { email: `joined-and-left@${s.domain}`, confirmed: true });
    for (const who of [newcomer, gone]) await subscribe(t.db, s.a.id, who.id);
    await ways.preferences(gone.uniqueId, true);
    // The leavers of the scene come back to B only: still not on the campaign's list.
    await subscribe(t.db, s.b.id, s.people.api.id);
    await t.db
      .update(campaigns)
      .set({ embargo: new Date(Date.now() - 1000), requeueUntil: new Date(Date.now() + 30 * 60_000) })
      .where(eq(campaigns.id, c.id));
    await deliver(c.id);
    assert.deepEqual(s.got(c.id), [...s.emails('stay'), newcomer.email].sort());
  });
});

describe('consent: what leaving changes', () => {
  test('the one-click of a segment-alone campaign leaves every list, says so in the history, and the next one does not reach them', async () => {
    const s = await scene();
    const first = await sendableCampaign(t.db, [], { userSelection: `segment:${everyone}` });
    await send(first.id);
    await deliver(first.id);
    assert.deepEqual(s.got(first.id), s.emails('stay', 'bOnly'));

    await ways.oneClick(first.id, s.people.stay.uniqueId);
    assert.deepEqual(await listIdsOf(s.people.stay.id), []);
    const [names] = [[s.a, s.b].map((l) => `"${l.name}" (#${l.id})`).join(', ')];
    assert.deepEqual(await historyOf(s.people.stay.id), [
      ['Unsubscribed', `Unsubscribed from ${names} by the unsubscribe link of campaign ${first.id} (one-click, RFC 8058)`],
    ]);
    // Again: nothing more to do, nothing recorded.
    await ways.oneClick(first.id, s.people.stay.uniqueId);
    assert.equal((await historyOf(s.people.stay.id)).length, 1);

    const next = await sendableCampaign(t.db, [], { userSelection: `segment:${everyone}` });
    await send(next.id);
    await deliver(next.id);
    assert.deepEqual(s.got(next.id), s.emails('bOnly'));
  });

  test('mail still queued for a campaign whose audience the subscriber left is skipped, by each way, with the counters', async () => {
    const s = await scene();
    const extra = await Promise.all(
      ['q-prefs', 'q-api', 'q-page', 'q-seg'].map(async (name) => {
        const who = await createSubscriber(t.db, { email: `${name}@${s.domain}`, confirmed: true });
        await subscribe(t.db, s.a.id, who.id);
        return who;
      }),
    );
    const [qPrefs, qApi, qPage, qSeg] = extra as [(typeof extra)[0], (typeof extra)[0], (typeof extra)[0], (typeof extra)[0]];
    await subscribe(t.db, s.b.id, qPrefs.id); // on B too: the preference form with nothing ticked leaves both
    const toA = await sendableCampaign(t.db, [s.a.id]);
    const alone = await sendableCampaign(t.db, [], { userSelection: `segment:${everyone}` });
    const other = await sendableCampaign(t.db, [s.a.id]);
    for (const c of [toA, alone, other]) await send(c.id);
    await freezeAudiences(t.ctx);
    const queued = async (campaignId: number) =>
      (await deliveryRows(t.db, campaignId)).filter((d) => d.status === 'queued').map((d) => d.subscriberId);
    for (const q of [qPrefs, qApi, qPage, qSeg]) {
      assert.ok((await queued(toA.id)).includes(q.id) && (await queued(alone.id)).includes(q.id), `${q.email} queued before leaving`);
    }

    const page = (
      await t.db
        .select()
        .from(subscribePageData)
        .where(eq(subscribePageData.data, String(s.a.id)))
    )[0]!.pageId;
    await ways.preferences(qPrefs.uniqueId); // leaves A and B (nothing ticked)
    await ways.subscribePageApi(page, qApi.email, qApi.uniqueId); // leaves A
    await ways.unsubscribePage(other.id, qPage.uniqueId); // leaves A through `other`'s link
    await ways.oneClick(alone.id, qSeg.uniqueId); // leaves every list

    for (const q of [qPrefs, qApi, qPage, qSeg]) {
      assert.ok(!(await queued(toA.id)).includes(q.id), `${q.email}: no more mail to A`);
      assert.ok(!(await queued(alone.id)).includes(q.id), `${q.email}: on no list, out of the segment-alone campaign`);
    }
    const skipped = (await deliveryRows(t.db, toA.id)).filter((d) => d.status === 'skipped');
    assert.equal(skipped.length, 4);
    assert.equal((await countersOf(t.db, toA.id))?.skipped, 4);
    assert.equal((await countersOf(t.db, toA.id))?.queued, (await queued(toA.id)).length);
    const [history] = (await historyOf(qPrefs.id)).slice(-1);
    assert.deepEqual(history, [
      'Unsubscribed',
      `Left "${s.a.name}" (#${s.a.id}), "${s.b.name}" (#${s.b.id}) in the preference centre; 3 queued campaign mail skipped`,
    ]);

    await deliver(toA.id, alone.id, other.id);
    for (const c of [toA, other]) assert.deepEqual(s.got(c.id), s.emails('stay'));
    assert.deepEqual(s.got(alone.id), s.emails('stay', 'bOnly'));
  });
  test('retrying failed mail requeues only those still in the audience: one who left since stays failed, unmailed', async () => {
    const s = await scene();
    const c = await sendableCampaign(t.db, [s.a.id]);
    await send(c.id);
    await parkOtherCampaigns(t.db, c.id);
    await withWorker(t.ctx, { batchSize: 5 }, async (w) => {
      t.smtp.failNext(1, 550, 'No such user here');
      await w.runOnce();
    });
    assert.deepEqual(await countersOf(t.db, c.id), { queued: 0, sent: 0, failed: 1, skipped: 0 });
    await ways.preferences(s.people.stay.uniqueId, true);
    const res = await t.inject({ method: 'POST', url: `/api/v2/campaigns/${c.id}/retry-failed`, headers });
    assert.deepEqual([res.statusCode, res.json()], [200, { requeued: 0 }]);
    await deliver(c.id);
    assert.deepEqual(s.got(c.id), []);
  });
});
