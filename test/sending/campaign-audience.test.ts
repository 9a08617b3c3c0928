import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { blacklist } from '../../src/db/schema/index.js';
import { createSubscriber, subscribe } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { deliveryRows, freezeAudiences, listWithMembers, parkOtherCampaigns, sendableCampaign } from './send-fixtures.js';

/*
 * GET /api/v2/campaigns/{id}/audience: the number the console's send confirmation names, which must be the number
 * of records the workers then freeze.
 */

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

const get = (url: string, h: Record<string, string> = headers) => t.inject({ method: 'GET', url: `/api/v2${url}`, headers: h });

describe('GET /api/v2/campaigns/{id}/audience', () => {
  test('authentication, privilege, unknown campaign, non-digit id', async () => {
    const anonymous = await t.inject({ method: 'GET', url: '/api/v2/campaigns/1/audience' });
    assert.equal(anonymous.statusCode, 403);
    assert.deepEqual(anonymous.json(), { message: 'No valid session key was provided as basic auth password.' });
    const { headers: noPrivilege } = await t.adminWithSession({ superUser: false, privileges: { statistics: true } });
    const denied = await get('/campaigns/1/audience', noPrivilege);
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), { message: 'You are not allowed to manage campaigns.' });
    const unknown = await get('/campaigns/999999/audience');
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), { message: 'Campaign not found.' });
    const letters = await get('/campaigns/abc/audience');
    assert.equal(letters.statusCode, 404);
    assert.match(letters.json().message, /^No route found for /);
  });

  test('a campaign without lists goes to nobody', async () => {
    const c = await sendableCampaign(t.db, []);
    const res = await get(`/campaigns/${c.id}/audience`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { count: 0, lists: 0 });
  });

  test('distinct sendable members of its lists, by the rule the freeze uses, and the freeze makes that many records', async () => {
    const { list: a, members } = await listWithMembers(t.db, 3, { prefix: 'aud-a' });
    const { list: b } = await listWithMembers(t.db, 2, { prefix: 'aud-b' });
    await subscribe(t.db, b.id, members[0]!.id); // on both lists: counted once
    const unconfirmed = await createSubscriber(t.db, { email: 'aud-unconfirmed@example.com', confirmed: false });
    const flagged = await createSubscriber(t.db, { email: 'aud-flagged@example.com', confirmed: true, blacklisted: true });
    const disabled = await createSubscriber(t.db, { email: 'aud-disabled@example.com', confirmed: true, disabled: true });
    const listed = await createSubscriber(t.db, { email: 'Aud-Listed@example.com', confirmed: true });
    await t.db.insert(blacklist).values({ email: 'aud-listed@EXAMPLE.com' });
    for (const s of [unconfirmed, flagged, disabled, listed]) await subscribe(t.db, a.id, s.id);
    // A list the campaign is not sent to does not count.
    await listWithMembers(t.db, 4, { prefix: 'aud-other' });
    const c = await sendableCampaign(t.db, [a.id, b.id]);

    const res = await get(`/campaigns/${c.id}/audience`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { count: 5, lists: 2 });

    await parkOtherCampaigns(t.db, c.id);
    assert.equal((await t.inject({ method: 'POST', url: `/api/v2/campaigns/${c.id}/send`, headers })).statusCode, 200);
    await freezeAudiences(t.ctx);
    assert.equal((await deliveryRows(t.db, c.id)).length, 5);
  });
});
