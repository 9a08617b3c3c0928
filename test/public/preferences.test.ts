import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { attributeDefinitions, subscriberAttributeValues, subscriptions } from '../../src/db/schema/index.js';
import { createList, createSubscriber, subscribe } from '../factories.js';
import { SCREENSHOTS } from '../console/browser.js';
import { mailsOf, sendableCampaign, withWorker } from '../sending/send-fixtures.js';
import { assertAccessible, browserSkip, startPublic, type PublicHarness } from './browser.js';

/*
 * The subscriber's pages in Chromium (JavaScript off): a real campaign goes out through the worker to the SMTP
 * sink; its [PREFERENCESURL], [UNSUBSCRIBEURL] and [FORWARDURL] are opened from the received mail. Screenshots of
 * every page at desktop and phone width, light and dark, each checked with axe-core.
 */

const skip = browserSkip();
let h: PublicHarness;
let links: { preferences: string; unsubscribe: string; forward: string };
let subscriberId = 0;
let lists: { news: number; events: number };
let nickname = 0;

/** The path of a link from the mail (PUBLIC_URL is not the test server's address). */
const pathOf = (url: string) => new URL(url).pathname;

async function shot(page: Page, name: string) {
  await page.screenshot({ path: join(SCREENSHOTS, `public-${name}.png`), fullPage: true });
  await assertAccessible(page, name);
}

before(async () => {
  if (skip) return;
  h = await startPublic();
  const { db } = h.app;
  const news = await createList(db, { name: 'Weekly news', description: 'What happened this week, every Friday.' });
  const events = await createList(db, { name: 'Events', description: 'Invitations to our meet-ups.' });
  lists = { news: news.id, events: events.id };
  const [nick] = await db
    .insert(attributeDefinitions)
    .values({ name: 'Nickname', type: 'textline', subscriberEditable: true, listOrder: 1 })
    .returning();
  nickname = nick!.id;
  const subscriber = await createSubscriber(db, { email: 'reader@example.com', confirmed: true });
  subscriberId = subscriber.id;
  await subscribe(db, news.id, subscriber.id);
  const campaign = await sendableCampaign(db, [news.id], {
    subject: 'Friday news',
    body:
      '<p>Hello, here is the news.</p><p><a href="[PREFERENCESURL]">Your preferences</a> · ' +
      '<a href="[UNSUBSCRIBEURL]">Unsubscribe</a> · <a href="[FORWARDURL]">Forward</a></p>',
  });
  const { headers } = await h.app.adminWithSession();
  const sent = await h.app.inject({ method: 'POST', url: `/api/v2/campaigns/${campaign.id}/send`, headers });
  assert.equal(sent.statusCode, 200, sent.body);
  await withWorker(h.app.ctx, { loop: false }, (w) => w.runOnce());
  await h.app.smtp.waitFor(1);
  const [mail] = mailsOf(h.app.smtp, campaign.id);
  const html = mail!.parsed.html || '';
  const href = (text: string) => new RegExp(`href="([^"]+)">${text}<`).exec(html)![1]!;
  links = { preferences: pathOf(href('Your preferences')), unsubscribe: pathOf(href('Unsubscribe')), forward: pathOf(href('Forward')) };
  assert.match(links.preferences, /^\/preferences\/[A-Za-z0-9_-]{44}$/);
});
after(async () => h?.close());

const listIds = async () =>
  (await h.app.db.select({ id: subscriptions.listId }).from(subscriptions).where(eq(subscriptions.subscriberId, subscriberId)))
    .map((r) => r.id)
    .sort();

describe('the preference centre in a browser', { skip }, () => {
  test('screenshots of the page (light, dark, desktop, phone) and in German', async () => {
    await h.screenshots('preferences', (page) => page.goto(links.preferences));
    const page = await h.newPage({ locale: 'de-DE', phone: true, javaScript: true });
    await page.goto(links.preferences);
    await shot(page, 'preferences-de-light-phone');
    assert.equal(await page.locator('h1').textContent(), 'Ihr Abonnement');
    assert.equal(await page.locator('html').getAttribute('lang'), 'de');
  });

  test('changes lists and an attribute through the forms', async () => {
    const page = await h.newPage({ javaScript: true });
    await page.goto(links.preferences);
    await page.getByLabel('Events').check();
    await page.getByRole('button', { name: 'Save my lists' }).click();
    await page.getByText('Your lists are saved.').waitFor();
    assert.deepEqual(await listIds(), [lists.news, lists.events].sort());

    await page.getByLabel('Nickname').fill('Robin');
    await page.getByRole('button', { name: 'Save my details' }).click();
    await page.getByText('Your details are saved.').waitFor();
    const [value] = await h.app.db.select().from(subscriberAttributeValues).where(eq(subscriberAttributeValues.definitionId, nickname));
    assert.equal(value!.value, 'Robin');
    await shot(page, 'preferences-saved-light-desktop');

    await page.getByLabel('Events').uncheck();
    await page.getByRole('button', { name: 'Save my lists' }).click();
    await page.getByText('Your lists are saved.').waitFor();
    assert.deepEqual(await listIds(), [lists.news]);
  });

  test('unsubscribe, then resubscribe, from the link in the mail (desktop and phone)', async () => {
    for (const phone of [false, true]) {
      const page = await h.newPage({ phone, javaScript: true });
      await page.goto(links.unsubscribe);
      await shot(page, `unsubscribe-light-${phone ? 'phone' : 'desktop'}`);
      await page.getByLabel('Why are you leaving? (optional)').fill('Too much mail');
      await page.getByRole('button', { name: 'Unsubscribe' }).click();
      await page.getByRole('heading', { name: 'You are unsubscribed' }).waitFor();
      assert.deepEqual(await listIds(), []);
      await shot(page, `unsubscribed-light-${phone ? 'phone' : 'desktop'}`);
      await page.getByRole('button', { name: 'Resubscribe' }).click();
      await page.getByRole('heading', { name: 'Welcome back' }).waitFor();
      assert.deepEqual(await listIds(), [lists.news]);
      await shot(page, `resubscribed-light-${phone ? 'phone' : 'desktop'}`);
    }
  });

  test('a forged link shows what happened and what to do; the forward form', async () => {
    const forged = links.preferences.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    const page = await h.newPage({ colorScheme: 'dark', phone: true, javaScript: true });
    const res = await page.goto(forged);
    assert.equal(res!.status(), 404);
    assert.equal(await page.locator('h1').textContent(), 'This link does not work');
    await shot(page, 'forged-link-dark-phone');
    const forward = await h.newPage({ colorScheme: 'dark', javaScript: true });
    await forward.goto(links.forward);
    await shot(forward, 'forward-dark-desktop');
  });
});
