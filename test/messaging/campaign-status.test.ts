import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { campaigns } from '../../src/db/schema/index.js';
import { createList } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

const CANNOT_SUBMIT = 'Cannot submit. Add at least one list and fill subject, from field, and message body';

async function campaign(sendFormat = 'html', text = '<p>Hi</p>') {
  const res = await t.inject({
    method: 'POST',
    url: '/api/v2/campaigns',
    headers,
    payload: {
      content: { subject: 'S', text },
      format: { send_format: sendFormat },
      options: { from_field: 'from@example.com' },
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

async function link(campaignId: number) {
  const list = await createList(t.db);
  const res = await t.inject({ method: 'POST', url: `/api/v2/list-messages/message/${campaignId}/list/${list.id}`, headers });
  assert.equal(res.statusCode, 201, res.body);
  return list;
}

const patch = (id: number | string, status: unknown, h: Record<string, string> = headers) =>
  t.inject({ method: 'PATCH', url: `/api/v2/campaigns/${id}/status`, headers: h, payload: { status } });

async function forceStatus(id: number, status: string) {
  await t.db.update(campaigns).set({ status }).where(eq(campaigns.id, id));
}

describe('PATCH /api/v2/campaigns/{id}/status', () => {
  test('submitting needs a list, a subject, a from field and a body; then draft → submitted', async () => {
    const c = await campaign();
    const refused = await patch(c.id, 'submitted');
    assert.equal(refused.statusCode, 422);
    assert.deepEqual(refused.json(), {
      message: 'Validation failed',
      errors: { status: [CANNOT_SUBMIT], 'metadata.status': [CANNOT_SUBMIT] },
    });
    await link(c.id);
    const ok = await patch(c.id, 'submitted');
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().message_metadata.status, 'submitted');
  });

  test('an invitation needs [CONFIRMATIONURL]', async () => {
    const c = await campaign('invite', '<p>Join us</p>');
    await link(c.id);
    const refused = await patch(c.id, 'submitted');
    assert.equal(refused.statusCode, 422);
    const message = 'Cannot submit invitation. Add [CONFIRMATIONURL] placeholder to the message body';
    assert.deepEqual(refused.json().errors, { status: [message], 'metadata.status': [message] });
    const ok = await campaign('invite', '<p>Join: [CONFIRMATIONURL]</p>');
    await link(ok.id);
    assert.equal((await patch(ok.id, 'submitted')).statusCode, 200);
  });

  test('every transition of the table: allowed ones 200, the rest 409', async () => {
    const allowed: Record<string, string[]> = {
      draft: ['submitted'],
      suspended: ['submitted'],
      submitted: ['prepared', 'suspended'],
      prepared: ['suspended'],
      inprocess: ['sent', 'suspended', 'submitted'],
      requeued: ['suspended'],
      sent: [],
    };
    const c = await campaign();
    await link(c.id);
    for (const from of Object.keys(allowed)) {
      for (const to of ['draft', 'sent', 'prepared', 'submitted', 'suspended', 'requeued']) {
        await forceStatus(c.id, from);
        const res = await patch(c.id, to);
        if (allowed[from]!.includes(to)) {
          assert.equal(res.statusCode, 200, `${from} → ${to}: ${res.body}`);
          assert.equal(res.json().message_metadata.status, to);
        } else {
          assert.equal(res.statusCode, 409, `${from} → ${to}: ${res.body}`);
          assert.deepEqual(res.json(), { message: 'Invalid status transition' });
          const [row] = await t.db.select().from(campaigns).where(eq(campaigns.id, c.id));
          assert.equal(row?.status, from, 'a refused transition changes nothing');
        }
      }
    }
  });

  test('sent sets the sent date', async () => {
    const c = await campaign();
    await forceStatus(c.id, 'inprocess');
    const res = await patch(c.id, 'sent');
    assert.ok(res.json().message_metadata.sent);
  });

  test('bad status 422, inprocess not requestable, missing campaign 404, no session 403', async () => {
    const c = await campaign();
    for (const status of ['inprocess', 'bogus', 5, null]) {
      const res = await patch(c.id, status);
      assert.equal(res.statusCode, 422, String(status));
      assert.ok(res.json().errors.status);
    }
    const missing = await patch(999999, 'submitted');
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), { message: 'Campaign not found.' });
    const none = await patch(c.id, 'submitted', {});
    assert.equal(none.statusCode, 403);
  });
});

describe('list–campaign links', () => {
  test('link (idempotent), lists of a campaign, campaigns of a list, check, unlink, unlink all', async () => {
    const c = await campaign();
    const list = await createList(t.db);
    const first = await t.inject({ method: 'POST', url: `/api/v2/list-messages/message/${c.id}/list/${list.id}`, headers });
    assert.equal(first.statusCode, 201);
    const linkBody = first.json();
    const listView = (await t.inject({ method: 'GET', url: `/api/v2/lists/${list.id}`, headers })).json();
    assert.deepEqual(linkBody, {
      id: linkBody.id,
      message: c,
      subscriber_list: listView,
      created_at: linkBody.created_at,
      updated_at: linkBody.updated_at,
    });
    const again = await t.inject({ method: 'POST', url: `/api/v2/list-messages/message/${c.id}/list/${list.id}`, headers });
    assert.equal(again.statusCode, 201);
    assert.deepEqual(again.json(), linkBody);

    const lists = await t.inject({ method: 'GET', url: `/api/v2/list-messages/message/${c.id}/lists`, headers });
    assert.deepEqual(lists.json(), { items: [listView] });
    const messages = await t.inject({ method: 'GET', url: `/api/v2/list-messages/list/${list.id}/messages`, headers });
    assert.deepEqual(messages.json(), { items: [c] });
    const check = await t.inject({ method: 'GET', url: `/api/v2/list-messages/message/${c.id}/list/${list.id}/check`, headers });
    assert.deepEqual(check.json(), { is_associated: true });

    const unlink = await t.inject({ method: 'DELETE', url: `/api/v2/list-messages/message/${c.id}/list/${list.id}`, headers });
    assert.equal(unlink.statusCode, 204);
    const unlinkAgain = await t.inject({ method: 'DELETE', url: `/api/v2/list-messages/message/${c.id}/list/${list.id}`, headers });
    assert.equal(unlinkAgain.statusCode, 404);
    assert.deepEqual(unlinkAgain.json(), { message: 'The campaign is not linked to this list.' });
    const checkAfter = await t.inject({ method: 'GET', url: `/api/v2/list-messages/message/${c.id}/list/${list.id}/check`, headers });
    assert.deepEqual(checkAfter.json(), { is_associated: false });

    await link(c.id);
    await link(c.id);
    const all = await t.inject({ method: 'DELETE', url: `/api/v2/list-messages/message/${c.id}/lists`, headers });
    assert.equal(all.statusCode, 204);
    assert.deepEqual((await t.inject({ method: 'GET', url: `/api/v2/list-messages/message/${c.id}/lists`, headers })).json(), { items: [] });
  });

  test('404 campaign first, then list; 403 without session', async () => {
    const c = await campaign();
    const list = await createList(t.db);
    const both = await t.inject({ method: 'POST', url: '/api/v2/list-messages/message/999999/list/999999', headers });
    assert.deepEqual(both.json(), { message: 'Campaign not found.' });
    const noList = await t.inject({ method: 'POST', url: `/api/v2/list-messages/message/${c.id}/list/999999`, headers });
    assert.equal(noList.statusCode, 404);
    assert.deepEqual(noList.json(), { message: 'Subscriber list not found.' });
    const noListMessages = await t.inject({ method: 'GET', url: '/api/v2/list-messages/list/999999/messages', headers });
    assert.equal(noListMessages.statusCode, 404);
    const none = await t.inject({ method: 'POST', url: `/api/v2/list-messages/message/${c.id}/list/${list.id}` });
    assert.equal(none.statusCode, 403);
    const word = await t.inject({ method: 'GET', url: '/api/v2/list-messages/message/abc/lists', headers });
    assert.equal(word.statusCode, 404);
  });
});
