import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startWebhookSender } from '../../src/webhooks/index.js';
import { startReceiver, verify, type Receiver } from '../webhooks/receiver.js';
import { browserSkip, openSignedIn, screenshots, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

/**
 * The Webhooks view against a real receiver on 127.0.0.1 (webhookAllowPrivate), with the webhook sender driven pass
 * by pass so the delivery the view lists is one really POSTed.
 */
describe('console: webhooks', { skip }, () => {
  let h: ConsoleHarness;
  let receiver: Receiver;
  let session: { key: string; id: number };
  let headers: Record<string, string>;
  before(async () => {
    receiver = await startReceiver();
    ({ harness: h, session, headers } = await startConsoleSignedIn({ loginName: 'root-admin' }, { webhookAllowPrivate: true }));
  });
  after(async () => {
    await h?.close();
    await receiver?.close();
  });

  test('create a webhook (its secret shown once), send a test, see a subscriber.created delivery, disable it, delete it', async () => {
    const page = await openSignedIn(h, session, '/admin/webhooks');
    await page.getByText('No webhooks').waitFor();

    await page.getByRole('button', { name: 'New webhook' }).click();
    // The API's field message shows beside the field: no event chosen is a 422 at `events`.
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('.field-error').first().waitFor();

    await page.getByLabel('subscriber.created').check();
    await page.getByLabel('subscriber.updated').check();
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByText(/shown only this once/).waitFor();
    const secret = (await page.getByLabel('Signing secret').textContent()) ?? '';
    assert.match(secret, /^whsec_[A-Za-z0-9+/=]+$/);
    const row = page.getByRole('row', { name: new RegExp(receiver.url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')) });
    assert.match((await row.textContent()) ?? '', /subscriber\.created, subscriber\.updated.*Enabled/);

    // The secret is never shown again: not after a reload, not by the API's listing.
    await page.reload();
    await row.waitFor();
    assert.equal(await page.getByText(secret).count(), 0);
    const listed = await h.app.inject({ method: 'GET', url: '/api/v2/webhooks', headers });
    assert.ok(!listed.body.includes(secret));

    await row.getByRole('button', { name: /Send test/ }).click();
    await page.getByText(`Test to ${receiver.url}: delivered, the endpoint answered 204.`).waitFor();
    const ping = receiver.received.find((r) => (JSON.parse(r.body) as { type: string }).type === 'webhook.test');
    assert.ok(ping, 'the receiver got the test ping');
    assert.ok(verify(secret, ping), 'the ping is signed with the secret the console showed');

    const created = await h.app.inject({ method: 'POST', url: '/api/v2/subscribers', headers, payload: { email: 'hooked@example.com' } });
    assert.equal(created.statusCode, 201, created.body);
    const sender = startWebhookSender(h.app.ctx, { loop: false });
    assert.equal(await sender.runOnce(), 1);

    await row.getByRole('button', { name: /Deliveries/ }).click();
    const deliveries = page.getByRole('region', { name: /Deliveries to/ });
    const delivery = deliveries.getByRole('row', { name: /subscriber\.created/ });
    await delivery.waitFor();
    assert.match((await delivery.textContent()) ?? '', /delivered.*1.*HTTP 204/);
    await deliveries.getByLabel('Status').selectOption('failed');
    await deliveries.getByText('No deliveries').waitFor();
    await deliveries.getByLabel('Status').selectOption('delivered');
    await delivery.waitFor();

    await row.getByRole('button', { name: /^Disable/ }).click();
    await page.getByText(`${receiver.url} disabled.`).waitFor();
    await row.filter({ hasText: 'Disabled' }).waitFor();
    const got = await h.app.inject({ method: 'GET', url: '/api/v2/webhooks', headers });
    assert.deepEqual(
      (got.json() as { enabled: boolean; disabled_reason: string | null }[]).map((w) => [w.enabled, w.disabled_reason]),
      [[false, null]],
    );

    await screenshots(h, session, 'webhooks', '/admin/webhooks', async (p) => {
      await p
        .getByRole('row', { name: /Disabled/ })
        .getByRole('button', { name: /Deliveries/ })
        .click();
      await p
        .getByRole('region', { name: /Deliveries to/ })
        .getByRole('row', { name: /subscriber\.created/ })
        .waitFor();
    });

    await row.getByRole('button', { name: /Delete/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByText('No webhooks').waitFor();
  });

  test('an administrator without the settings privilege has no menu entry, and the page says they are not allowed', async () => {
    const s = await h.app.adminWithSession({ superUser: false, privileges: { subscribers: true } });
    const page = await openSignedIn(h, { key: s.key, id: s.sessionId }, '/admin/webhooks');
    await page.getByRole('alert').waitFor();
    const menu = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    assert.ok(!menu.includes('Webhooks'));
  });
});
