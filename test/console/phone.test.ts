import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createBounce, createList, createSubscriber, subscribe } from '../factories.js';
import { SCREENSHOTS, browserSkip, openSignedIn, startConsole, type ConsoleHarness } from './browser.js';

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
 * Every view of the console's first part on a 390 px phone: nothing is wider than the screen (no sideways scrolling
 * of the page or of a table) and a date in a table takes at most two lines. Long addresses and reasons are seeded on
 * purpose. Screenshots go to test-results/screenshots/phone-*.png.
 */
describe('console: every view fits a 390 px phone', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  let listId = 0;
  let subscriberId = 0;
  before(async () => {
    h = await startConsole();
    const s = await h.app.adminWithSession({ loginName: 'phone-admin' });
    session = { key: s.key, id: s.sessionId };
    const list = await createList(h.app.db, { name: 'A rather long list name for a small screen', description: 'Monthly news' });
    listId = list.id;
    for (let i = 0; i < 5; i++) {
      const sub = await createSubscriber(h.app.db, { email: `someone.with.a.long.address.${i}@subdomain.example-company.com`, confirmed: i % 2 === 0 });
      await subscribe(h.app.db, list.id, sub.id);
      subscriberId = sub.id;
      await createBounce(h.app.db, { subscriberId: sub.id, status: 'unidentified bounce', comment: 'mailbox full: the message could not be delivered' });
      const res = await h.app.inject({
        method: 'POST',
        url: '/api/v2/blacklist/add',
        headers: s.headers,
        payload: { email: `blocked.person.number.${i}@another-long-domain.example.org`, reason: 'Complained about the newsletter twice' },
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    for (const name of ['Country of residence', 'Favourite topics']) {
      const res = await h.app.inject({ method: 'POST', url: '/api/v2/attributes', headers: s.headers, payload: { name, type: 'textline' } });
      assert.equal(res.statusCode, 201, res.body);
    }
    const res = await h.app.inject({ method: 'POST', url: '/api/v2/administrators/attributes', headers: s.headers, payload: { name: 'Department', default_value: 'Sales' } });
    assert.equal(res.statusCode, 201, res.body);
  });
  after(async () => h?.close());

  const views: [name: string, path: () => string, ready: (page: Page) => Promise<unknown>][] = [
    ['dashboard', () => '/admin/', (p) => p.getByRole('heading', { name: 'Dashboard' }).waitFor()],
    ['lists', () => '/admin/lists', (p) => p.getByRole('link', { name: /A rather long list/ }).waitFor()],
    ['list', () => `/admin/lists/${listId}`, (p) => p.getByRole('link', { name: /someone\.with/ }).first().waitFor()],
    ['subscribers', () => '/admin/subscribers', (p) => p.getByRole('link', { name: /someone\.with/ }).first().waitFor()],
    ['subscriber', () => `/admin/subscribers/${subscriberId}`, (p) => p.getByTestId('subscriber-bounces').waitFor()],
    ['import', () => '/admin/import', (p) => p.getByRole('heading', { name: /Import/ }).first().waitFor()],
    ['blacklist', () => '/admin/blacklist', (p) => p.getByRole('link', { name: /blocked\.person/ }).first().waitFor()],
    ['attributes', () => '/admin/attributes', (p) => p.getByRole('row', { name: /Country/ }).waitFor()],
    ['admin-attributes', () => '/admin/administrator-attributes', (p) => p.getByRole('row', { name: /Department/ }).waitFor()],
    ['administrators', () => '/admin/administrators', (p) => p.getByRole('row', { name: /phone-admin/ }).waitFor()],
    ['account', () => '/admin/account', (p) => p.getByLabel('Your e-mail').waitFor()],
  ];

  for (const [name, path, ready] of views) {
    test(`${name} at 390 px`, async () => {
      const page = await openSignedIn(h, session, path(), { phone: true });
      await ready(page);
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, `phone-${name}.png`), fullPage: true });
      const m = await measure(page);
      assert.ok(m.pageOverflow <= 0, `the page is ${m.pageOverflow}px wider than the screen`);
      assert.deepEqual(m.tableOverflows.filter((o) => o > 0), [], 'a table scrolls sideways');
      assert.deepEqual(m.dateLines.filter((lines) => lines > 2), [], 'a date takes more than two lines');
      await page.context().close();
    });
  }
});
