import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { attributeDefinitions } from '../../src/db/schema/index.js';
import { createCampaign, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { uniqueEmail } from './compose-fixtures.js';

/*
 * Issue 23: a `campaigns`-only administrator previewed a campaign for any subscriber address and read their uid,
 * attributes and a working preference link. A real subscriber's preview needs `subscribers`; the sample does not.
 */

let t: TestApp;
let attributeName: string;
before(async () => {
  t = await startTestApp();
  attributeName = `City ${Date.now()}`;
  await t.db.insert(attributeDefinitions).values({ name: attributeName, type: 'textline', defaultValue: 'Springfield' });
});
after(() => t.close());

const preview = (id: number, payload: object, headers: Record<string, string>) =>
  t.inject({ method: 'POST', url: `/api/v2/campaigns/${id}/preview`, headers, payload });

describe('POST /api/v2/campaigns/{messageId}/preview and the subscribers privilege', () => {
  test('campaigns only: a real subscriber is 403 (by address or id, known or not); the sample shows sample values and no working link', async () => {
    const { headers } = await t.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    const email = uniqueEmail('private');
    const sub = await createSubscriber(t.db, { email });
    const campaign = await createCampaign(t.db, {
      subject: 'For [EMAIL]',
      body: `<p>[UNIQID] in [${attributeName.toUpperCase()}]: <a href="[PREFERENCESURL]">prefs</a> [UNSUBSCRIBE] [FORWARD]</p>`,
      textBody: '[EMAIL] [UNIQID] [PREFERENCESURL] [UNSUBSCRIBEURL] [CONFIRMATIONURL]',
      fromField: 'News <news@example.com>',
    });
    const message =
      'Previewing for a real subscriber needs the subscribers privilege (it shows their data and working links); preview with sample values instead.';
    for (const payload of [{ email }, { subscriber_id: sub.id }, { email: uniqueEmail('nobody') }]) {
      const res = await preview(campaign.id, payload, headers);
      assert.equal(res.statusCode, 403, JSON.stringify(payload));
      assert.deepEqual(res.json(), { message });
    }

    const sample = await preview(campaign.id, { sample: true }, headers);
    assert.equal(sample.statusCode, 200, sample.body);
    const uid = '0123456789abcdef0123456789abcdef';
    assert.deepEqual(sample.json(), {
      subscriber: null,
      subject: 'For sample.subscriber@example.com',
      from: '"News" <news@example.com>',
      reply_to: null,
      format: 'html',
      html:
        `<p>${uid} in Springfield: <a href="https://sample.invalid/preferences">prefs</a> ` +
        '<a href="https://sample.invalid/unsubscribe">Unsubscribe</a> <a href="https://sample.invalid/forward">Forward this message</a></p>',
      text: `sample.subscriber@example.com ${uid} https://sample.invalid/preferences https://sample.invalid/unsubscribe https://sample.invalid/confirm`,
    });
    assert.ok(
      !sample.body.includes(sub.uniqueId) && !sample.body.includes(t.config.publicUrl),
      'nothing of a real subscriber, no link to the service',
    );
  });

  test('with subscribers (or as super user) a real subscriber is previewed as before', async () => {
    const both = await t.adminWithSession({ superUser: false, privileges: { campaigns: true, subscribers: true } });
    const root = await t.adminWithSession();
    const email = uniqueEmail('allowed');
    const sub = await createSubscriber(t.db, { email });
    const campaign = await createCampaign(t.db, { subject: 'Hi [EMAIL]', body: '<p>[UNIQID]</p>', textBody: '[UNIQID]' });
    for (const { headers } of [both, root]) {
      const res = await preview(campaign.id, { email }, headers);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().subscriber, { id: sub.id, email });
      assert.equal(res.json().text, sub.uniqueId);
    }
  });
});
