import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { browserSkip, openSignedIn, screenshots, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/**
 * The Settings view (issue 26) against the service: sections saved one by one, a field error beside its field, the
 * SMTP password never shown, Test connection's steps from the real SMTP sink (webhookAllowPrivate lets it reach
 * 127.0.0.1), and the view hidden from administrators who are not super users.
 */
describe('console: settings', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  before(async () => {
    ({ harness: h, session } = await startConsoleSignedIn(
      { loginName: 'root-admin' },
      { webhookAllowPrivate: true, settingsFromEnv: ['PUBLIC_URL'] },
    ));
  });
  after(async () => h?.close());

  test('save each section, a bad address shown beside its field, a logo, SMTP servers with Test connection', async () => {
    const page = await openSignedIn(h, session, '/admin/settings');
    await page.getByRole('heading', { name: 'Settings' }).waitFor();

    const sender = page.getByRole('region', { name: 'Sender' });
    await sender.getByLabel('From name').fill('Garden Club');
    await sender.getByLabel('From address').fill('not an address');
    await sender.getByRole('button', { name: 'Save Sender' }).click();
    await sender.getByText('This value is not a valid email address.').waitFor();
    await sender.getByLabel('From address').fill('club@example.org');
    await sender.getByLabel('Reply-To address').fill('help@example.org');
    await sender.getByRole('button', { name: 'Save Sender' }).click();
    await sender.getByText('Sender: saved.').waitFor();
    assert.equal(h.app.ctx.settings.current.mailFrom, 'Garden Club <club@example.org>');
    assert.equal(h.app.ctx.settings.current.replyTo, 'help@example.org');

    const organisation = page.getByRole('region', { name: 'Organisation' });
    await organisation.getByLabel('Organisation name').fill('The Garden Club');
    await organisation.getByRole('button', { name: 'Save Organisation' }).click();
    await organisation.getByText('Organisation: saved.').waitFor();
    await organisation.getByLabel('Upload a logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG });
    await organisation.getByRole('img', { name: 'The Garden Club logo' }).waitFor();

    const smtp = page.getByRole('region', { name: 'SMTP servers' });
    assert.equal(await smtp.getByLabel('URL').inputValue(), h.app.smtp.url);
    await smtp.getByLabel('Send a test message to').fill('operator@example.org');
    await smtp.getByRole('button', { name: 'Test connection to server 1' }).click();
    await smtp.getByText('The server works.').waitFor();
    await smtp.getByText(/Test message to operator@example\.org accepted: 250/).waitFor();
    await h.app.smtp.waitFor(1);

    await smtp.getByRole('button', { name: 'Add a server' }).click();
    await smtp.getByLabel('URL').nth(1).fill('smtp://mailer@relay.example.org:587');
    await smtp.getByLabel('Password').nth(1).fill('hunter2-Secret');
    await smtp.getByRole('button', { name: 'Save SMTP servers' }).click();
    await smtp.getByText('SMTP servers: saved.').waitFor();
    assert.equal(await smtp.getByLabel('Password').nth(1).inputValue(), '');
    assert.equal(await smtp.getByLabel('Password').nth(1).getAttribute('placeholder'), 'Stored: leave empty to keep it');
    assert.equal(await page.getByText('hunter2-Secret').count(), 0);
    assert.equal(h.app.ctx.settings.current.smtpUrls[1], 'smtp://mailer:hunter2-Secret@relay.example.org:587');

    await page.getByText('Set by the environment variable PUBLIC_URL').waitFor();

    await screenshots(h, session, 'settings', '/admin/settings', async (p) => {
      await p.getByRole('heading', { name: 'Settings' }).waitFor();
      await p.getByRole('img', { name: 'The Garden Club logo' }).waitFor();
      await p.getByRole('button', { name: 'Test connection to server 1' }).click();
      await p.getByText('The server works.').waitFor();
    });
  });

  test('an administrator who is not a super user sees no Settings, and the address says so', async () => {
    const other = await h.app.adminWithSession({ loginName: 'plain-admin', superUser: false });
    const page = await openSignedIn(h, { key: other.key, id: other.sessionId }, '/admin/account');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Settings' }).count(), 0);
    await page.goto('/admin/settings');
    await page
      .getByText(/super user/i)
      .first()
      .waitFor();
  });
});
