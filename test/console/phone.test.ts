import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { bounceRules, campaignCounters, listCampaigns, templates } from '../../src/db/schema/index.js';
import { createBounce, createCampaign, createDelivery, createList, createSubscriber, subscribe } from '../factories.js';
import { SCREENSHOTS, browserSkip, openSignedIn, picturesOff, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

/** The page's layout as the browser measured it (the tests' tsconfig has no DOM library, so it is typed here). */
interface Measured {
  pageOverflow: number;
  tableOverflows: number[];
  dateLines: number[];
}

// A string, not a function: tsx names arrow functions with a helper (`__name`) that does not exist in the page.
const MEASURE = `(() => {
  const line = (el) => Number.parseFloat(getComputedStyle(el).lineHeight);
  return {
    pageOverflow: document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth,
    tableOverflows: [...document.querySelectorAll('.table-wrap')].map((t) => t.scrollWidth - t.clientWidth),
    dateLines: [...document.querySelectorAll('time.datetime')].map((t) => Math.round(t.getBoundingClientRect().height / line(t))),
  };
})()`;

function measure(page: Page): Promise<Measured> {
  return page.evaluate(MEASURE) as Promise<Measured>;
}

/*
 * Every view of the console (both parts) on a 390 px phone: nothing is wider than the screen (no sideways scrolling
 * of the page or of a table) and a date in a table takes at most two lines. Long addresses and reasons are seeded on
 * purpose. Screenshots go to test-results/screenshots/phone-*.png.
 */
describe('console: every view fits a 390 px phone', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  let listId = 0;
  let subscriberId = 0;
  let draftId = 0;
  let sentId = 0;
  let templateId = 0;
  let segmentId = 0;
  before(async () => {
    let headers: Record<string, string>, adminId: number;
    ({ harness: h, session, headers, adminId } = await startConsoleSignedIn({ loginName: 'phone-admin' }));
    const list = await createList(h.app.db, { name: 'A rather long list name for a small screen', description: 'Monthly news' });
    listId = list.id;
    for (let i = 0; i < 5; i++) {
      const sub = await createSubscriber(h.app.db, {
        email: `someone.with.a.long.address.${i}@subdomain.example-company.com`,
        confirmed: i % 2 === 0,
      });
      await subscribe(h.app.db, list.id, sub.id);
      subscriberId = sub.id;
      await createBounce(h.app.db, {
        subscriberId: sub.id,
        status: 'unidentified bounce',
        comment: 'mailbox full: the message could not be delivered',
      });
      const res = await h.app.inject({
        method: 'POST',
        url: '/api/v2/blacklist/add',
        headers,
        payload: { email: `blocked.person.number.${i}@another-long-domain.example.org`, reason: 'Complained about the newsletter twice' },
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    for (const name of ['Country of residence', 'Favourite topics']) {
      const res = await h.app.inject({ method: 'POST', url: '/api/v2/attributes', headers, payload: { name, type: 'textline' } });
      assert.equal(res.statusCode, 201, res.body);
    }
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v2/administrators/attributes',
      headers,
      payload: { name: 'Department', default_value: 'Sales' },
    });
    assert.equal(res.statusCode, 201, res.body);

    // Part two: a draft and a sent campaign with long subjects, deliveries with long responses, a template, a rule.
    const from = 'The Newsletter Department <newsletter.department@subdomain.example-company.com>';
    const draft = await createCampaign(h.app.db, {
      subject: 'A campaign subject long enough to wrap on a phone [FIRST NAME]',
      ownerId: adminId,
      fromField: from,
      body: '<p>Hello [EMAIL], read <a href="https://www.example-company.com/a/rather/long/path/to/the/autumn/offers">the offers</a>.</p>',
    });
    const sent = await createCampaign(h.app.db, {
      subject: 'The autumn issue with a rather long subject line',
      ownerId: adminId,
      fromField: from,
      body: '<p>Hi</p>',
      status: 'sent',
      sentAt: new Date(),
    });
    draftId = draft.id;
    sentId = sent.id;
    await h.app.db.insert(listCampaigns).values([
      { campaignId: draft.id, listId },
      { campaignId: sent.id, listId },
    ]);
    await h.app.db.insert(campaignCounters).values({
      campaignId: sent.id,
      sent: 4,
      failed: 1,
      opens: 3,
      uniqueOpens: 2,
      humanOpens: 2,
      uniqueHumanOpens: 2,
      clicks: 1,
      uniqueClicks: 1,
      humanClicks: 1,
    });
    for (const [i, sub] of (await h.app.db.query.subscriptions.findMany()).entries()) {
      await createDelivery(
        h.app.db,
        sent.id,
        sub.subscriberId,
        i === 0
          ? {
              status: 'failed',
              sentAt: null,
              attempts: 3,
              lastResponse:
                '550 5.1.1 <someone.with.a.long.address.0@subdomain.example-company.com>: Recipient address rejected: User unknown in virtual mailbox table',
            }
          : { attempts: 1, lastResponse: '250 2.0.0 Ok: queued as 4XKJ2M1Z9Qz1abcdefghijklmnop' },
      );
    }
    const [template] = await h.app.db
      .insert(templates)
      .values({
        title: 'A template with a long title for the phone',
        content: '<html><body><p>[CONTENT]</p><p><a href="[UNSUBSCRIBEURL]">Unsubscribe</a></p></body></html>',
      })
      .returning();
    templateId = template!.id;
    await h.app.db.insert(bounceRules).values({
      regex: '/recipient address rejected: user unknown in (virtual|local) (mailbox|recipient) table/i',
      regexHash: 'phone-rule',
      action: 'blacklistuseranddeletebounce',
      comment: 'Unknown users are never coming back',
    });
    const segment = await h.app.inject({
      method: 'POST',
      url: '/api/v2/segments',
      headers,
      payload: { name: 'Confirmed readers with a long segment name', definition: { match: 'all', conditions: [{ type: 'confirmed', value: true }] } },
    });
    assert.equal(segment.statusCode, 201, segment.body);
    segmentId = (segment.json() as { id: number }).id;
  });
  after(async () => h?.close());

  const views: [name: string, path: () => string, ready: (page: Page) => Promise<unknown>][] = [
    ['dashboard', () => '/admin/', (p) => p.getByRole('heading', { name: 'Dashboard' }).waitFor()],
    ['lists', () => '/admin/lists', (p) => p.getByRole('link', { name: /A rather long list/ }).waitFor()],
    [
      'list',
      () => `/admin/lists/${listId}`,
      (p) =>
        p
          .getByRole('link', { name: /someone\.with/ })
          .first()
          .waitFor(),
    ],
    [
      'subscribers',
      () => '/admin/subscribers',
      (p) =>
        p
          .getByRole('link', { name: /someone\.with/ })
          .first()
          .waitFor(),
    ],
    ['subscriber', () => `/admin/subscribers/${subscriberId}`, (p) => p.getByTestId('subscriber-bounces').waitFor()],
    [
      'import',
      () => '/admin/import',
      (p) =>
        p
          .getByRole('heading', { name: /Import/ })
          .first()
          .waitFor(),
    ],
    [
      'blacklist',
      () => '/admin/blacklist',
      (p) =>
        p
          .getByRole('link', { name: /blocked\.person/ })
          .first()
          .waitFor(),
    ],
    ['attributes', () => '/admin/attributes', (p) => p.getByRole('row', { name: /Country/ }).waitFor()],
    ['admin-attributes', () => '/admin/administrator-attributes', (p) => p.getByRole('row', { name: /Department/ }).waitFor()],
    ['administrators', () => '/admin/administrators', (p) => p.getByRole('row', { name: /phone-admin/ }).waitFor()],
    ['account', () => '/admin/account', (p) => p.getByLabel('Your e-mail').waitFor()],
    ['campaigns', () => '/admin/campaigns', (p) => p.getByRole('link', { name: /The autumn issue/ }).waitFor()],
    [
      'campaign-editor',
      () => `/admin/campaigns/${draftId}`,
      (p) =>
        p
          .getByTestId('checks')
          .getByText(/FIRST NAME/)
          .first()
          .waitFor(),
    ],
    ['campaign-send', () => `/admin/campaigns/${draftId}/send`, (p) => p.getByTestId('audience').getByText('3').waitFor()],
    ['campaign-progress', () => `/admin/campaigns/${sentId}/send`, (p) => p.getByRole('heading', { name: 'Progress' }).waitFor()],
    ['campaign-deliveries', () => `/admin/campaigns/${sentId}/deliveries`, (p) => p.getByText('5 shown of 5').waitFor()],
    ['campaign-report', () => `/admin/campaigns/${sentId}/report`, (p) => p.getByRole('heading', { name: 'Opens and clicks per hour' }).waitFor()],
    ['analytics', () => '/admin/analytics', (p) => p.locator('.chart canvas').first().waitFor()],
    ['templates', () => '/admin/templates', (p) => p.getByRole('link', { name: /A template with a long title/ }).waitFor()],
    [
      'template',
      () => `/admin/templates/${templateId}`,
      (p) => p.frameLocator('iframe[title="Template preview"]').getByText('Sample campaign heading').waitFor(),
    ],
    [
      'bounces',
      () => '/admin/bounces',
      (p) =>
        p
          .getByText(/mailbox full/)
          .first()
          .waitFor(),
    ],
    [
      'bounce-rules',
      () => '/admin/bounce-rules',
      (p) =>
        p
          .getByText(/recipient address rejected/)
          .first()
          .waitFor(),
    ],
    ['segments', () => '/admin/segments', (p) => p.getByRole('link', { name: /Confirmed readers/ }).waitFor()],
    ['segment', () => `/admin/segments/${segmentId}`, (p) => p.getByTestId('segment-sample').waitFor()],
  ];

  // One phone tab goes from view to view: each view is a new document in it (goto), measured as a fresh load would
  // be, without a new context and renderer for each (half a second apiece here, and 24 views).
  let tab: Page | undefined;
  const open = async (path: string): Promise<Page> => {
    if (!tab) tab = await openSignedIn(h, session, path, { phone: true });
    else await tab.goto(path);
    return tab;
  };

  for (const [name, path, ready] of views) {
    test(`${name} at 390 px`, async () => {
      const page = await open(path());
      await ready(page);
      if (!picturesOff()) {
        mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({ path: join(SCREENSHOTS, `phone-${name}.png`), fullPage: true });
      }
      const m = await measure(page);
      assert.ok(m.pageOverflow <= 0, `the page is ${m.pageOverflow}px wider than the screen`);
      assert.deepEqual(
        m.tableOverflows.filter((o) => o > 0),
        [],
        'a table scrolls sideways',
      );
      assert.deepEqual(
        m.dateLines.filter((lines) => lines > 2),
        [],
        'a date takes more than two lines',
      );
    });
  }
});
