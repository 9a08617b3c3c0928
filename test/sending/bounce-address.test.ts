import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createAdmin, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { uniqueEmail } from './compose-fixtures.js';
import { bothPass, testKeys, verify } from './dkim-fixtures.js';
import { listWithMembers, mailsOf, sendableCampaign, withWorker } from './send-fixtures.js';

/*
 * BOUNCE_ADDRESS: the envelope sender (Return-Path) of campaign and system mail, apart from the From address.
 */

const keys = testKeys('example.com');
let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp({ bounceAddress: 'bounces@example.com', dkim: keys, mailFrom: 'Mailroom <mailroom@example.com>' });
  ({ headers } = await t.adminWithSession());
});
after(() => t.close());

describe('BOUNCE_ADDRESS', () => {
  test('campaign mail (test send and worker): envelope from the bounce address, From header unchanged', async () => {
    const email = uniqueEmail();
    await createSubscriber(t.db, { email, confirmed: true });
    const campaign = await sendableCampaign(t.db, []);
    const before = t.smtp.messages.length;
    const res = await t.inject({ method: 'POST', url: `/api/v2/campaigns/${campaign.id}/test-send`, headers, payload: { emails: [email] } });
    assert.equal(res.statusCode, 200, res.body);
    const [mail] = (await t.smtp.waitFor(before + 1)).slice(before);
    assert.deepEqual(mail!.envelope, { from: 'bounces@example.com', to: [email] });
    assert.deepEqual(mail!.parsed.from!.value, [{ name: 'News', address: 'news@example.com' }]);

    const { list } = await listWithMembers(t.db, 2);
    const sent = await sendableCampaign(t.db, [list.id]);
    assert.equal((await t.inject({ method: 'POST', url: `/api/v2/campaigns/${sent.id}/send`, headers })).statusCode, 200);
    await withWorker(t.ctx, {}, (w) => w.runOnce());
    assert.deepEqual(
      mailsOf(t.smtp, sent.id).map((m) => m.envelope.from),
      ['bounces@example.com', 'bounces@example.com'],
    );
  });

  test('system mail: envelope from the bounce address, still signed for the From domain', async () => {
    await createAdmin(t.db, { loginName: `bounce${Date.now()}`, email: 'bounce-admin@example.org' });
    const before = t.smtp.messages.length;
    const res = await t.inject({ method: 'POST', url: '/api/v2/password-reset/request', payload: { email: 'bounce-admin@example.org' } });
    assert.equal(res.statusCode, 204, res.body);
    const [mail] = (await t.smtp.waitFor(before + 1)).slice(before);
    assert.deepEqual(mail!.envelope, { from: 'bounces@example.com', to: ['bounce-admin@example.org'] });
    assert.deepEqual(mail!.parsed.from!.value, [{ name: 'Mailroom', address: 'mailroom@example.com' }]);
    assert.deepEqual(await verify(mail!.raw, keys), bothPass());
  });

  test('system mail without DKIM keys: envelope from the bounce address too', async () => {
    const plain = await startTestApp({ bounceAddress: 'returns@example.net' });
    try {
      await createAdmin(plain.db, { loginName: 'plain-admin', email: 'plain-admin@example.org' });
      const res = await plain.inject({ method: 'POST', url: '/api/v2/password-reset/request', payload: { email: 'plain-admin@example.org' } });
      assert.equal(res.statusCode, 204, res.body);
      const [mail] = await plain.smtp.waitFor(1);
      assert.deepEqual(mail!.envelope, { from: 'returns@example.net', to: ['plain-admin@example.org'] });
      assert.deepEqual(mail!.parsed.from!.value, [{ name: 'Mailroom', address: 'mailroom@localhost' }]);
    } finally {
      await plain.close();
    }
  });

  test('not an address: refused at start', () => {
    assert.throws(
      () => loadConfig({ BOUNCE_ADDRESS: 'bounces at example.com' }),
      (err: Error) => err instanceof ConfigError && /^Invalid environment variable BOUNCE_ADDRESS=/.test(err.message),
    );
    assert.equal(loadConfig({ BOUNCE_ADDRESS: 'bounces@example.com' }).bounceAddress, 'bounces@example.com');
  });
});
