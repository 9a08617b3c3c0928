import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { blacklist, campaigns, deliveries } from '../../src/db/schema/index.js';
import { startWorker } from '../../src/sending/worker.js';
import { createCampaign, createSubscriber, subscribe } from '../factories.js';
import { atom, startTestApp, type TestApp } from '../helper.js';
import { countersOf, deliveryRows, freezeAudiences, listWithMembers, parkOtherCampaigns, recipientsOf, sendableCampaign } from './send-fixtures.js';

/*
 * The send, resend, deliveries and retry-failed routes: order of checks, bad input, the audience a worker freezes
 * after the request and the ledger as the API shows it.
 */

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

const NOT_FOUND = { message: 'Campaign not found.' };
const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };
const CANNOT_SUBMIT = 'Cannot submit. Add at least one list and fill subject, from field, and message body';

const post = (url: string, payload?: object, h: Record<string, string> = headers) =>
  t.inject({ method: 'POST', url: `/api/v2${url}`, headers: h, ...(payload === undefined ? {} : { payload }) });
const get = (url: string, h: Record<string, string> = headers) => t.inject({ method: 'GET', url: `/api/v2${url}`, headers: h });

describe('POST /api/v2/campaigns/{id}/send', () => {
  test('authentication first, then the campaign (specification row 13); privilege; non-digit id', async () => {
    const missing = 999_999;
    for (const path of ['send', 'resend', 'deliveries', 'retry-failed']) {
      const method = path === 'deliveries' ? 'GET' : 'POST';
      const anonymous = await t.inject({ method, url: `/api/v2/campaigns/${missing}/${path}`, payload: method === 'POST' ? {} : undefined });
      assert.equal(anonymous.statusCode, 403, path);
      assert.deepEqual(anonymous.json(), NO_SESSION);
      const unknown = await t.inject({ method, url: `/api/v2/campaigns/${missing}/${path}`, headers, payload: method === 'POST' ? {} : undefined });
      assert.equal(unknown.statusCode, 404, path);
      assert.deepEqual(unknown.json(), NOT_FOUND);
      const letters = await t.inject({ method, url: `/api/v2/campaigns/abc/${path}`, headers });
      assert.equal(letters.statusCode, 404, path);
      assert.match(letters.json().message, /^No route found for /);
    }
    const { headers: noPrivilege } = await t.adminWithSession({ superUser: false, privileges: { subscribers: true } });
    const denied = await post(`/campaigns/${missing}/send`, undefined, noPrivilege);
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), { message: 'You are not allowed to manage campaigns.' });
  });

  test('a campaign that cannot be sent answers 422 saying why, and stays a draft with no records', async () => {
    const noList = await sendableCampaign(t.db, []);
    const res = await post(`/campaigns/${noList.id}/send`);
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), { message: 'Validation failed', errors: { status: [CANNOT_SUBMIT], 'metadata.status': [CANNOT_SUBMIT] } });
    const { list } = await listWithMembers(t.db, 1);
    const noSubject = await sendableCampaign(t.db, [list.id], { subject: ' ' });
    assert.equal((await post(`/campaigns/${noSubject.id}/send`)).statusCode, 422);
    const noFrom = await sendableCampaign(t.db, [list.id], { fromField: '' });
    assert.equal((await post(`/campaigns/${noFrom.id}/send`)).statusCode, 422);
    const noBody = await sendableCampaign(t.db, [list.id], { body: '' });
    assert.equal((await post(`/campaigns/${noBody.id}/send`)).statusCode, 422);
    const invite = await sendableCampaign(t.db, [list.id], { sendFormat: 'invite' });
    const inviteRes = await post(`/campaigns/${invite.id}/send`);
    assert.equal(inviteRes.statusCode, 422);
    assert.deepEqual(inviteRes.json().errors.status, ['Cannot submit invitation. Add [CONFIRMATIONURL] placeholder to the message body']);
    for (const c of [noList, noSubject, noFrom, noBody, invite]) {
      const [row] = await t.db.select().from(campaigns).where(eq(campaigns.id, c.id));
      assert.equal(row!.status, 'draft');
      assert.equal(row!.audienceFrozenAt, null);
      assert.deepEqual(await deliveryRows(t.db, c.id), []);
    }
  });

  test('submits at once; a worker then freezes the audience: confirmed, not blacklisted, not disabled, each subscriber once', async () => {
    const { list: a, members } = await listWithMembers(t.db, 2, { prefix: 'freeze-a' });
    const { list: b, members: others } = await listWithMembers(t.db, 1, { prefix: 'freeze-b' });
    await subscribe(t.db, b.id, members[0]!.id); // on both lists: one record
    const unconfirmed = await createSubscriber(t.db, { email: 'freeze-unconfirmed@example.com', confirmed: false });
    const flagged = await createSubscriber(t.db, { email: 'freeze-flagged@example.com', confirmed: true, blacklisted: true });
    const disabled = await createSubscriber(t.db, { email: 'freeze-disabled@example.com', confirmed: true, disabled: true });
    const listed = await createSubscriber(t.db, { email: 'Freeze-Listed@example.com', confirmed: true });
    await t.db.insert(blacklist).values({ email: 'freeze-listed@EXAMPLE.com' });
    for (const s of [unconfirmed, flagged, disabled, listed]) await subscribe(t.db, a.id, s.id);
    const c = await sendableCampaign(t.db, [a.id, b.id]);

    const res = await post(`/campaigns/${c.id}/send`);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.id, c.id);
    assert.equal(body.message_metadata.status, 'submitted');
    assert.equal(body.message_metadata.send_start, null);
    // The request froze nothing itself.
    assert.deepEqual(await deliveryRows(t.db, c.id), []);
    assert.equal((await t.db.select().from(campaigns).where(eq(campaigns.id, c.id)))[0]!.audienceFrozenAt, null);

    await freezeAudiences(t.ctx);
    const rows = await deliveryRows(t.db, c.id);
    assert.deepEqual(
      rows.map((r) => [r.subscriberId, r.status, r.attempts]),
      [members[0]!, members[1]!, others[0]!].map((s) => [s.id, 'queued', 0]).sort((x, y) => Number(x[0]) - Number(y[0])),
    );
    assert.deepEqual(await countersOf(t.db, c.id), { queued: 3, sent: 0, failed: 0, skipped: 0 });
    const [row] = await t.db.select().from(campaigns).where(eq(campaigns.id, c.id));
    assert.ok(row!.audienceFrozenAt);
    assert.equal(row!.status, 'inprocess');
    assert.ok(row!.sendStart);

    // Sending again: unchanged, no new records.
    const again = await post(`/campaigns/${c.id}/send`);
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().message_metadata.status, 'inprocess');
    await freezeAudiences(t.ctx);
    assert.equal((await deliveryRows(t.db, c.id)).length, 3);

    // Suspend, a new member joins, resubmit: the newcomer is added, nobody is duplicated.
    assert.equal(
      (await t.inject({ method: 'PATCH', url: `/api/v2/campaigns/${c.id}/status`, headers, payload: { status: 'suspended' } })).statusCode,
      200,
    );
    const late = await createSubscriber(t.db, { email: 'freeze-late@example.com', confirmed: true });
    await subscribe(t.db, a.id, late.id);
    const resumed = await post(`/campaigns/${c.id}/send`);
    assert.equal(resumed.json().message_metadata.status, 'submitted');
    assert.equal((await deliveryRows(t.db, c.id)).length, 3);
    await freezeAudiences(t.ctx);
    assert.equal((await deliveryRows(t.db, c.id)).at(-1)!.subscriberId, late.id);
    assert.equal((await deliveryRows(t.db, c.id)).length, 4);
    assert.deepEqual(await countersOf(t.db, c.id), { queued: 4, sent: 0, failed: 0, skipped: 0 });
  });

  test('a sent campaign is answered unchanged (phpList: send is a no-op unless submitted)', async () => {
    const c = await createCampaign(t.db, { status: 'sent', fromField: 'a@example.com', body: 'x' });
    const res = await post(`/campaigns/${c.id}/send`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().message_metadata.status, 'sent');
    assert.deepEqual(await deliveryRows(t.db, c.id), []);
  });
});

describe('POST /api/v2/campaigns/{id}/resend', () => {
  test('bad input: 422 for the body, 404 for an unknown list, 409 for a campaign never sent', async () => {
    const { list } = await listWithMembers(t.db, 1);
    const draft = await sendableCampaign(t.db, [list.id]);
    for (const [payload, field] of [
      [{}, 'list_ids'],
      [{ list_ids: [] }, 'list_ids'],
      [{ list_ids: 'x' }, 'list_ids'],
      [{ list_ids: [0] }, 'list_ids[0]'],
      [{ list_ids: [list.id, 'two'] }, 'list_ids[1]'],
    ] as const) {
      const res = await post(`/campaigns/${draft.id}/resend`, payload);
      assert.equal(res.statusCode, 422, JSON.stringify(payload));
      assert.deepEqual(Object.keys(res.json().errors), [field]);
    }
    const unknownList = await post(`/campaigns/${draft.id}/resend`, { list_ids: [list.id, 999_999] });
    assert.equal(unknownList.statusCode, 404);
    assert.deepEqual(unknownList.json(), { message: 'Subscriber list does not exists.' });
    const neverSent = await post(`/campaigns/${draft.id}/resend`, { list_ids: [list.id] });
    assert.equal(neverSent.statusCode, 409);
    assert.match(neverSent.json().message, /has not been sent/);
    assert.deepEqual(await deliveryRows(t.db, draft.id), []);
  });

  test('sends to further lists, skipping subscribers who already got it; a sent campaign goes back to submitted', async () => {
    const { list: first, members } = await listWithMembers(t.db, 2, { prefix: 'resend-a' });
    const { list: second, members: newcomers } = await listWithMembers(t.db, 1, { prefix: 'resend-b' });
    await subscribe(t.db, second.id, members[0]!.id);
    const c = await sendableCampaign(t.db, [first.id]);
    assert.equal((await post(`/campaigns/${c.id}/send`)).statusCode, 200);
    const worker = startWorker(t.ctx, { loop: false });
    try {
      await worker.runOnce();
      assert.deepEqual(recipientsOf(t.smtp, c.id), members.map((m) => m.email).sort());
      assert.equal((await get(`/campaigns/${c.id}`)).json().message_metadata.status, 'sent');

      const res = await post(`/campaigns/${c.id}/resend`, { list_ids: [second.id, second.id] });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().message_metadata.status, 'submitted');
      await worker.runOnce();
      assert.deepEqual(recipientsOf(t.smtp, c.id), [...members, ...newcomers].map((m) => m.email).sort());
      assert.equal((await get(`/campaigns/${c.id}`)).json().message_metadata.status, 'sent');
      assert.deepEqual(await countersOf(t.db, c.id), { queued: 0, sent: 3, failed: 0, skipped: 0 });

      // Nothing new to add. The request cannot know that without reading the lists, so the campaign goes back to
      // submitted; the workers find nobody new, send nothing and end it sent again.
      const nothing = await post(`/campaigns/${c.id}/resend`, { list_ids: [first.id, second.id] });
      assert.equal(nothing.json().message_metadata.status, 'submitted');
      await worker.runOnce();
      assert.equal((await get(`/campaigns/${c.id}`)).json().message_metadata.status, 'sent');
      assert.deepEqual(recipientsOf(t.smtp, c.id), [...members, ...newcomers].map((m) => m.email).sort());
      assert.deepEqual(await countersOf(t.db, c.id), { queued: 0, sent: 3, failed: 0, skipped: 0 });
    } finally {
      await worker.stop();
    }
  });
});

describe('GET /api/v2/campaigns/{id}/deliveries and POST …/retry-failed', () => {
  test('cursor pages of whole records, status filter, bad status 422', async () => {
    const { list, members } = await listWithMembers(t.db, 3, { prefix: 'ledger' });
    const c = await sendableCampaign(t.db, [list.id]);
    await post(`/campaigns/${c.id}/send`);
    await freezeAudiences(t.ctx);
    const rows = await deliveryRows(t.db, c.id);
    // Shape the ledger by hand: one sent, one failed, one still queued.
    await t.db
      .update(deliveries)
      .set({ status: 'sent', attempts: 1, lastResponse: '250 OK', sentAt: new Date() })
      .where(eq(deliveries.id, rows[0]!.id));
    await t.db.update(deliveries).set({ status: 'failed', attempts: 1, lastResponse: '550 No such user' }).where(eq(deliveries.id, rows[1]!.id));

    const page1 = await get(`/campaigns/${c.id}/deliveries?limit=2`);
    assert.equal(page1.statusCode, 200);
    const b1 = page1.json();
    assert.deepEqual(b1, {
      items: [
        {
          id: rows[0]!.id,
          subscriber_id: members[0]!.id,
          email: members[0]!.email,
          status: 'sent',
          attempts: 1,
          last_response: '250 OK',
          queued_at: atom(b1.items[0].queued_at),
          sent_at: atom(b1.items[0].sent_at),
          updated_at: atom(b1.items[0].updated_at),
          next_attempt_at: null,
        },
        {
          id: rows[1]!.id,
          subscriber_id: members[1]!.id,
          email: members[1]!.email,
          status: 'failed',
          attempts: 1,
          last_response: '550 No such user',
          queued_at: atom(b1.items[1].queued_at),
          sent_at: null,
          updated_at: atom(b1.items[1].updated_at),
          next_attempt_at: null,
        },
      ],
      pagination: { total: 3, limit: 2, has_more: true, next_cursor: rows[1]!.id },
    });
    const page2 = (await get(`/campaigns/${c.id}/deliveries?limit=2&after_id=${rows[1]!.id}`)).json();
    assert.deepEqual(page2, {
      items: [
        {
          id: rows[2]!.id,
          subscriber_id: members[2]!.id,
          email: members[2]!.email,
          status: 'queued',
          attempts: 0,
          last_response: null,
          queued_at: atom(page2.items[0].queued_at),
          sent_at: null,
          updated_at: atom(page2.items[0].updated_at),
          next_attempt_at: atom(page2.items[0].next_attempt_at),
        },
      ],
      pagination: { total: 3, limit: 2, has_more: false, next_cursor: rows[2]!.id },
    });
    const failed = (await get(`/campaigns/${c.id}/deliveries?status=failed`)).json();
    assert.deepEqual(
      failed.items.map((d: { id: number }) => d.id),
      [rows[1]!.id],
    );
    assert.deepEqual(failed.pagination, { total: 1, limit: 25, has_more: false, next_cursor: rows[1]!.id });
    const none = (await get(`/campaigns/${c.id}/deliveries?status=skipped`)).json();
    assert.deepEqual(none, { items: [], pagination: { total: 0, limit: 25, has_more: false, next_cursor: null } });
    const bad = await get(`/campaigns/${c.id}/deliveries?status=lost`);
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(Object.keys(bad.json().errors), ['status']);
    // The campaign is checked before the query is validated.
    assert.deepEqual((await get('/campaigns/999999/deliveries?status=lost')).json(), NOT_FOUND);
  });

  test('retry-failed queues failed records again with attempts reset; a sent campaign is reopened', async () => {
    const { list, members } = await listWithMembers(t.db, 2, { prefix: 'retry' });
    const c = await sendableCampaign(t.db, [list.id]);
    await post(`/campaigns/${c.id}/send`);
    await parkOtherCampaigns(t.db, c.id);
    const worker = startWorker(t.ctx, { loop: false });
    try {
      t.smtp.failNext(1, 550, 'No such user here');
      await worker.runOnce();
      assert.equal((await get(`/campaigns/${c.id}`)).json().message_metadata.status, 'sent');
      assert.deepEqual(await countersOf(t.db, c.id), { queued: 0, sent: 1, failed: 1, skipped: 0 });

      const res = await post(`/campaigns/${c.id}/retry-failed`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { requeued: 1 });
      assert.equal((await get(`/campaigns/${c.id}`)).json().message_metadata.status, 'submitted');
      const queued = (await get(`/campaigns/${c.id}/deliveries?status=queued`)).json().items;
      assert.equal(queued.length, 1);
      assert.equal(queued[0].attempts, 0);
      assert.deepEqual(await countersOf(t.db, c.id), { queued: 1, sent: 1, failed: 0, skipped: 0 });

      await worker.runOnce();
      assert.deepEqual(recipientsOf(t.smtp, c.id), members.map((m) => m.email).sort());
      assert.equal((await get(`/campaigns/${c.id}`)).json().message_metadata.status, 'sent');
      assert.deepEqual(await countersOf(t.db, c.id), { queued: 0, sent: 2, failed: 0, skipped: 0 });
      assert.deepEqual((await post(`/campaigns/${c.id}/retry-failed`)).json(), { requeued: 0 });
      assert.equal((await get(`/campaigns/${c.id}`)).json().message_metadata.status, 'sent');
    } finally {
      await worker.stop();
    }
  });
});
