import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { browserSkip, startPublic, type PublicHarness } from './browser.js';
import { listIdsOf, signupFixture, subscriberByEmail } from './fixtures.js';

/*
 * The sign-up form in a real browser with JavaScript off: fill it in with attributes, get the confirmation mail from
 * the SMTP sink, open its link, see the confirm page; validation errors; German; screenshots of every page.
 */

const skip = browserSkip();
let h: PublicHarness;
let f: Awaited<ReturnType<typeof signupFixture>>;
before(async () => {
  if (skip) return;
  h = await startPublic();
  f = await signupFixture(h.app.db, { accent_color: '#1f6f5c', footer: 'Garden Club · 12 Park Lane' });
});
after(async () => {
  if (!skip) await h.close();
});

/** A link of a received mail, opened on this test's server (PUBLIC_URL names another host). */
const local = (link: string) => {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
};

async function fillForm(page: Page, email: string) {
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel(f.name.name).fill('Ada Lovelace');
  await page.getByLabel(f.country.name).selectOption({ label: 'France' });
  await page.getByLabel(f.member.name).check();
  await page.getByRole('radio', { name: 'Expert' }).check();
  await page.getByRole('checkbox', { name: 'Music' }).check();
  await page.getByLabel(f.birthday.name).fill('1990-12-10');
  await page.getByLabel(f.note.name).fill('Hello from the browser');
  await page.getByRole('checkbox', { name: f.events.name }).check();
}

describe('sign-up form in the browser', { skip }, () => {
  test('sign up with attributes, confirm by the mailed link, the confirm page names the lists', async () => {
    const page = await h.newPage();
    await page.goto(`/subscribe/${f.page.id}`);
    assert.equal(await page.title(), f.page.title);
    await fillForm(page, 'ada@example.org');
    await page.getByRole('button', { name: 'Sign me up' }).click();
    await page.getByRole('heading', { name: 'Thank you' }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/subscribe/${f.page.id}/thanks`);
    await page.getByText('Thanks! Look for our mail.').waitFor();

    const mails = await h.app.smtp.waitFor(1);
    const mail = mails.find((m) => m.envelope.to.includes('ada@example.org'))!;
    const link = /(https?:\/\/\S+\/subscribers\/confirm\?\S+)/.exec(mail.parsed.text ?? '')![1]!;
    const subscriber = (await subscriberByEmail(h.app.db, 'ada@example.org'))!;
    assert.equal(subscriber.confirmed, false);
    assert.deepEqual(await listIdsOf(h.app.db, subscriber.id), [f.events.id]);

    await page.goto(local(link));
    await page.getByRole('heading', { name: 'Thank you, your subscription is confirmed!' }).waitFor();
    assert.deepEqual(await page.getByRole('listitem').allTextContents(), [f.events.name]);
    const manage = page.getByRole('link', { name: 'Manage your subscription' });
    assert.match(String(await manage.getAttribute('href')), /\/preferences\/[A-Za-z0-9_-]+$/);
    assert.equal((await subscriberByEmail(h.app.db, 'ada@example.org'))!.confirmed, true);
    await h.screenshots('confirm', (p) => p.goto(local(link)));
  });

  test('validation errors come back beside their fields with the input kept, and the keyboard reaches every field', async () => {
    const page = await h.newPage();
    await page.goto(`/subscribe/${f.page.id}`);
    await page.getByLabel('E-mail address').fill('not an address');
    await page.getByLabel(f.note.name).fill('kept');
    await page.getByRole('button', { name: 'Sign me up' }).click();
    await page.getByRole('heading', { name: 'Please check the highlighted fields.' }).waitFor();
    const email = page.getByLabel('E-mail address');
    assert.equal(await email.inputValue(), 'not an address');
    assert.equal(await email.getAttribute('aria-invalid'), 'true');
    assert.equal(
      await page.locator(`#${await email.getAttribute('aria-describedby')}`).textContent(),
      'Please enter an e-mail address such as name@example.org.',
    );
    assert.equal(await page.getByLabel(f.note.name).inputValue(), 'kept');
    await page.locator('#lists-error').getByText('Please choose at least one list.').waitFor();
    // The honeypot is out of the tab order: Tab from the e-mail field goes to the next real field.
    await email.focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.locator(':focus').getAttribute('id'), `attr_${f.name.id}`);
    await h.screenshots('signup-errors', async (p) => {
      await p.goto(`/subscribe/${f.page.id}`);
      await p.getByLabel('E-mail address').fill('not an address');
      await p.getByRole('button', { name: 'Sign me up' }).click();
      await p.getByRole('heading', { name: 'Please check the highlighted fields.' }).waitFor();
    });
  });

  test('German from the browser language; screenshots of the form and the thank-you page', async () => {
    const page = await h.newPage({ locale: 'de-DE' });
    await page.goto(`/subscribe/${f.page.id}`);
    await page.getByLabel('E-Mail-Adresse').waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'de');
    await page.getByRole('button', { name: 'Sign me up' }).click();
    await page.getByText('Bitte prüfen Sie die markierten Felder.').waitFor();
    await page.locator('#email-error').getByText('Bitte füllen Sie dieses Feld aus.').waitFor();
    await h.screenshots('signup', (p) => p.goto(`/subscribe/${f.page.id}`));
    await h.screenshots('signup-de', (p) => p.goto(`/subscribe/${f.page.id}`), { locale: 'de-DE' });
    await h.screenshots('signup-thanks', (p) => p.goto(`/subscribe/${f.page.id}/thanks`));
  });
});

describe('sign-up abuse rules in the browser', { skip }, () => {
  test('the honeypot is out of sight; a second sign-up of an address within 10 minutes gets the wait page', async () => {
    const page = await h.newPage();
    await page.goto(`/subscribe/${f.page.id}`);
    const box = await page.locator('input[name="website"]').boundingBox();
    assert.ok(box && box.x + box.width <= 0, `the honeypot is off-screen: ${JSON.stringify(box)}`);
    assert.equal(await page.locator('input[name="website"]').getAttribute('tabindex'), '-1');
    await fillForm(page, 'twice@example.org');
    await page.getByRole('button', { name: 'Sign me up' }).click();
    await page.getByRole('heading', { name: 'Thank you' }).waitFor();
    await page.goto(`/subscribe/${f.page.id}`);
    await fillForm(page, 'twice@example.org');
    await page.getByRole('button', { name: 'Sign me up' }).click();
    await page.getByRole('heading', { name: 'Please wait a moment' }).waitFor();
    await page.getByText(/Please try again in \d+ minutes\./).waitFor();
    // Every variant posts the same address again, so each gets the wait page.
    await h.screenshots('signup-wait', async (p) => {
      await p.goto(`/subscribe/${f.page.id}`);
      await fillForm(p, 'twice@example.org');
      await p.getByRole('button', { name: 'Sign me up' }).click();
      await p.getByRole('heading', { name: 'Please wait a moment' }).waitFor();
    });
    await h.screenshots('signup-not-found', (p) => p.goto('/subscribe/999999'));
  });
});
