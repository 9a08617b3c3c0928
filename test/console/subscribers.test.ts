import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createBounce, createCampaign, createList, createSubscriber, subscribe } from '../factories.js';
import { browserSkip, openSignedIn, screenshots, screenshotSchemes, screenshotsOff, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

describe('console: subscribers, blacklist, dashboard', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  let headers: Record<string, string>;
  before(async () => {
    ({ harness: h, session, headers } = await startConsoleSignedIn());
  });
  after(async () => h?.close());
  const open = (path: string) => openSignedIn(h, session, path);
  const screenshotSchemesOf = async (page: Parameters<typeof screenshotSchemes>[0], name: string) => {
    if (!screenshotsOff()) await screenshotSchemes(page, (scheme) => `${name}-${scheme}-desktop`);
  };

  test('search by a part of the address, filter, page through; the address keeps the search', async () => {
    for (let i = 0; i < 60; i++)
      await createSubscriber(h.app.db, { email: `crowd${String(i).padStart(2, '0')}@example.org`, confirmed: i % 2 === 0 });
    await createSubscriber(h.app.db, { email: 'Rare.Bird@example.net', confirmed: true, blacklisted: true });
    const page = await open('/admin/subscribers');
    await page.getByText('50 shown of 61').waitFor();
    await page.getByRole('link', { name: 'Next page →' }).click();
    await page.getByText('11 shown of 61').waitFor();

    await page.getByLabel('Search by e-mail').fill('bird@EXAMPLE');
    await page.getByText('1 shown of 1').waitFor();
    assert.match(page.url(), /\?q=bird%40EXAMPLE$/);
    assert.deepEqual(await page.locator('tbody tr td:first-child').allTextContents(), ['Rare.Bird@example.net']);

    await page.goto('/admin/subscribers?q=crowd&confirmed=false');
    await page.getByText('30 shown of 30').waitFor();
    assert.equal(await page.getByLabel('Confirmed').inputValue(), 'false');
    await page.getByLabel('Blacklisted').selectOption('true');
    await page.getByText('Nobody matches').waitFor();
    assert.match(page.url(), /blacklisted=true/);
  });

  test('filter by list, with the other filters; the address keeps the list and the pager pages inside it', async () => {
    const list = await createList(h.app.db, { name: 'Garden club' });
    for (let i = 0; i < 55; i++) {
      const s = await createSubscriber(h.app.db, { email: `gardener${String(i).padStart(2, '0')}@example.org`, confirmed: i < 5 });
      await subscribe(h.app.db, list.id, s.id);
    }
    const page = await open('/admin/subscribers');
    await page.getByLabel(/^List/).selectOption({ label: 'Garden club' });
    await page.getByText('50 shown of 55').waitFor();
    assert.match(page.url(), new RegExp(`\\?list=${list.id}$`));
    await page.getByRole('link', { name: 'Next page →' }).click();
    await page.getByText('5 shown of 55').waitFor();
    assert.deepEqual(
      await page.locator('tbody tr td:first-child').allTextContents(),
      [50, 51, 52, 53, 54].map((i) => `gardener${i}@example.org`),
    );
    await page.getByLabel('Confirmed').selectOption('true');
    await page.getByText('5 shown of 5').waitFor();
    assert.equal(await page.getByLabel(/^List/).inputValue(), String(list.id));
    await page.reload();
    await page.getByText('5 shown of 5').waitFor();
    assert.equal(await page.getByLabel(/^List/).inputValue(), String(list.id));
  });

  test("a subscriber's page: attributes of every type edited with their own control, lists joined and left, flags, history, delete", async () => {
    const defs: Record<string, number> = {};
    const create = async (name: string, type: string, options?: string[]) => {
      const res = await h.app.inject({
        method: 'POST',
        url: '/api/v2/attributes',
        headers,
        payload: { name, type, ...(options ? { options: options.map((o) => ({ name: o })) } : {}) },
      });
      assert.equal(res.statusCode, 201, res.body);
      defs[name] = (res.json() as { id: number }).id;
    };
    await create('Name', 'textline');
    await create('Notes', 'textarea');
    await create('Wants news', 'checkbox');
    await create('Country', 'select', ['France', 'Norway']);
    await create('Size', 'radio', ['Small', 'Large']);
    await create('Topics', 'checkboxgroup', ['Books', 'Films', 'Music']);
    await create('Birthday', 'date');
    await create('Source', 'hidden');
    await create('Card', 'creditcardno');
    const list = await createList(h.app.db, { name: 'Members' });
    const other = await createList(h.app.db, { name: 'Other list' });
    const s = await createSubscriber(h.app.db, { email: 'person@example.com', confirmed: true, bounceCount: 3 });
    await subscribe(h.app.db, list.id, s.id);

    const page = await open(`/admin/subscribers/${s.id}`);
    await page.getByRole('heading', { name: 'person@example.com' }).waitFor();
    const form = page.getByRole('form', { name: 'Attributes' });
    await form.getByLabel('Name').fill('Ada');
    await form.getByLabel('Notes').fill('Two\nlines');
    await form.getByLabel('Wants news').check();
    await form.getByLabel('Country').selectOption({ label: 'Norway' });
    await form.getByRole('group', { name: 'Size' }).getByLabel('Large').check();
    await form.getByRole('group', { name: 'Topics' }).getByLabel('Books').check();
    await form.getByRole('group', { name: 'Topics' }).getByLabel('Music').check();
    await form.getByLabel('Birthday').fill('1990-12-10');
    await form.getByLabel(/Source/).fill('fair');
    await form.getByLabel('Card').fill('4111');
    await form.getByRole('button', { name: 'Save attributes' }).click();
    await page.getByText('Attributes saved.').waitFor();

    const values = await h.app.inject({ method: 'GET', url: `/api/v2/subscribers/${s.id}/attributes?limit=100`, headers });
    const stored = Object.fromEntries(
      (values.json() as { items: { definition: { name: string; options: { id: number; name: string }[] }; value: string }[] }).items.map((v) => {
        const names = v.definition.options.length
          ? v.value
              .split(',')
              .map((id) => v.definition.options.find((o) => String(o.id) === id)?.name ?? id)
              .join('+')
          : v.value;
        return [v.definition.name, names];
      }),
    );
    assert.deepEqual(stored, {
      Name: 'Ada',
      Notes: 'Two\nlines',
      'Wants news': '1',
      Country: 'Norway',
      Size: 'Large',
      Topics: 'Books+Music',
      Birthday: '1990-12-10',
      Source: 'fair',
      Card: '4111',
    });
    // The saved values come back into the controls.
    await page.reload();
    assert.equal(await form.getByLabel('Country').inputValue(), String(stored && (await optionId('Country', 'Norway'))));
    assert.equal(await form.getByRole('group', { name: 'Topics' }).getByLabel('Films').isChecked(), false);
    assert.equal(await form.getByRole('group', { name: 'Topics' }).getByLabel('Music').isChecked(), true);

    await page.getByLabel('Add to list').selectOption({ label: 'Other list' });
    await page.getByRole('button', { name: 'Join' }).click();
    await page.getByText('Joined Other list.').waitFor();
    await page.getByRole('button', { name: 'Leave Members' }).click();
    await page.getByText('Left Members.').waitFor();
    const after = await h.app.inject({ method: 'GET', url: `/api/v2/subscribers/${s.id}`, headers });
    assert.deepEqual(
      (after.json() as { subscribed_lists: { id: number }[] }).subscribed_lists.map((l) => l.id),
      [other.id],
    );

    await page.getByRole('button', { name: 'Reset bounce count' }).click();
    await page.getByText('Bounce count reset.').waitFor();
    await page.getByTestId('bounce-count').filter({ hasText: '0' }).waitFor();
    await page.getByRole('button', { name: 'Blacklist', exact: true }).click();
    await page.getByText('Blacklisted.', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Unblacklist' }).click();
    await page.getByText('Taken off the blacklist.').waitFor();
    await page.getByRole('cell', { name: /Bounce count reset by/ }).waitFor();

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete subscriber' }).click();
    await page.getByRole('heading', { name: 'Subscribers' }).waitFor();
    const gone = await h.app.inject({ method: 'GET', url: `/api/v2/subscribers/${s.id}`, headers });
    assert.equal(gone.statusCode, 404);

    async function optionId(definition: string, option: string): Promise<number> {
      const res = await h.app.inject({ method: 'GET', url: `/api/v2/attributes/${defs[definition]}`, headers });
      return (res.json() as { options: { id: number; name: string }[] }).options.find((o) => o.name === option)!.id;
    }
  });

  test("a subscriber's bounces: date, campaign, status and diagnosis, oldest first, more on request", async () => {
    const s = await createSubscriber(h.app.db, { email: 'bouncy@example.com', confirmed: true });
    const other = await createSubscriber(h.app.db, { email: 'steady@example.com', confirmed: true });
    const campaign = await createCampaign(h.app.db, { subject: 'Spring news' });
    await createBounce(h.app.db, { subscriberId: other.id, campaignId: campaign.id, status: 'bounced list message' });
    for (let i = 0; i < 27; i++) {
      await createBounce(h.app.db, {
        subscriberId: s.id,
        campaignId: i === 0 ? campaign.id : null,
        receivedAt: new Date(Date.UTC(2026, 1, 1 + i, 10)),
        status: i === 0 ? 'bounced list message' : 'unidentified',
        comment: i === 0 ? '550 5.1.1 user unknown' : null,
      });
    }
    const page = await open(`/admin/subscribers/${s.id}`);
    const table = page.getByTestId('subscriber-bounces');
    await page.getByText('25 shown of 27').waitFor();
    const first = await table.locator('tbody tr').first().locator('td').allTextContents();
    assert.deepEqual(first.slice(1), ['Spring news', 'bounced list message', '550 5.1.1 user unknown']);
    assert.match(first[0]!, /^1 Feb 2026/);
    await page.getByRole('button', { name: 'More bounces' }).click();
    await page.getByText('27 shown of 27').waitFor();
    assert.equal(await table.locator('tbody tr').count(), 27);
    assert.match((await table.locator('tbody tr').last().textContent()) ?? '', /^27 Feb 2026.*—unidentified—$/);
    assert.equal(await page.getByRole('button', { name: 'More bounces' }).count(), 0);

    const quiet = await open(`/admin/subscribers/${other.id}`);
    await quiet.getByTestId('subscriber-bounces').getByText('Spring news').waitFor();
    const noBounces = await open(`/admin/subscribers/${(await createSubscriber(h.app.db, { email: 'calm@example.com' })).id}`);
    await noBounces.getByText('No bounces recorded.').waitFor();

    // Bounces need the campaigns privilege: without it the section is left out, the rest of the page works.
    const limited = await h.app.adminWithSession({ superUser: false, privileges: { subscribers: true } });
    const narrow = await openSignedIn(h, { key: limited.key, id: limited.sessionId }, `/admin/subscribers/${s.id}`);
    await narrow.getByRole('heading', { name: 'History' }).waitFor();
    assert.equal(await narrow.getByRole('heading', { name: 'Bounces' }).count(), 0);
  });

  test('blacklist: add with a reason, look up with its date and reason, remove', async () => {
    const page = await open('/admin/blacklist');
    await page.getByLabel('E-mail to blacklist').fill('spammer@example.com');
    await page.getByLabel('Reason').fill('Complained twice');
    await page.getByRole('button', { name: 'Blacklist', exact: true }).click();
    await page.getByText('spammer@example.com is blacklisted.').waitFor();
    const entry = page.getByTestId('blacklist-entry');
    await entry.getByText('Complained twice').waitFor();
    assert.match((await entry.textContent()) ?? '', /Added\d{1,2} \w{3} \d{4}/);
    await page.getByRole('button', { name: 'Remove from blacklist' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByText('spammer@example.com can receive mail again.').waitFor();
    await entry.getByText('spammer@example.com is not blacklisted.').waitFor();
  });

  test('blacklist: every entry with its date and reason, filtered by a part of the address, paged; a row opens the entry', async () => {
    for (let i = 0; i < 52; i++) {
      const res = await h.app.inject({
        method: 'POST',
        url: '/api/v2/blacklist/add',
        headers,
        payload: { email: `listed${String(i).padStart(2, '0')}@example.net`, reason: i === 51 ? 'Hard bounce' : null },
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    const page = await open('/admin/blacklist');
    const entries = page.getByRole('region', { name: 'Blacklisted addresses' });
    await entries.getByText('50 shown of 52').waitFor();
    await entries.getByRole('link', { name: 'Next page →' }).click();
    await entries.getByText('2 shown of 52').waitFor();
    const rows = entries.locator('tbody tr');
    assert.deepEqual(await rows.locator('td:first-child').allTextContents(), ['listed50@example.net', 'listed51@example.net']);
    // The date and the time are two parts now, without a comma (the time goes under the date on a phone).
    assert.match((await rows.nth(1).textContent()) ?? '', /^listed51@example\.net\d{1,2} \w{3} \d{4} \d{2}:\d{2}Hard bounce$/);

    await entries.getByLabel('Filter by e-mail').fill('ED07@EXAMPLE');
    await entries.getByText('1 shown of 1').waitFor();
    assert.match(page.url(), /\?find=ED07%40EXAMPLE$/);
    await entries.getByRole('link', { name: 'listed07@example.net' }).click();
    await page.getByTestId('blacklist-entry').getByText('listed07@example.net').waitFor();
    await page.getByRole('button', { name: 'Remove from blacklist' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await entries.getByText('Nothing matches').waitFor();
  });

  test('dashboard: totals and the subscribers-over-time chart', async () => {
    const page = await open('/admin/');
    const totals = page.getByTestId('totals');
    await totals.getByText('Subscribers', { exact: true }).waitFor();
    const value = (label: string) =>
      totals
        .locator('.stat')
        .filter({ has: page.getByText(label, { exact: true }) })
        .locator('.stat-value')
        .textContent();
    const count = Number((await value('Subscribers'))?.replace(/,/g, ''));
    const res = await h.app.inject({ method: 'GET', url: '/api/v2/subscribers?limit=1', headers });
    assert.equal(count, (res.json() as { pagination: { total: number } }).pagination.total);
    assert.match((await value('Lists')) ?? '', /^\d+$/);
    await page.locator('.chart canvas').first().waitFor();
  });

  test('new subscriber: HTML mail preselected (SUBSCRIBER_HTML_DEFAULT), or the text version only when unticked', async () => {
    const page = await open('/admin/subscribers');
    for (const [email, html] of [
      ['new-html@example.org', true],
      ['new-text@example.org', false],
    ] as const) {
      await page.goto('/admin/subscribers');
      await page.getByRole('button', { name: 'New subscriber' }).click();
      const dialog = page.getByRole('dialog', { name: 'New subscriber' });
      await dialog.getByLabel('E-mail').fill(email);
      const format = dialog.getByLabel('Prefers HTML mail (otherwise the text version only)');
      assert.equal(await format.isChecked(), true, 'preselected from GET /subscribers/defaults');
      if (!html) await format.uncheck();
      else await screenshotSchemesOf(page, 'subscriber-new');
      await dialog.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('heading', { name: email }).waitFor();
      assert.equal(await page.getByLabel('Prefers HTML mail').isChecked(), html, email);
      const id = Number(/subscribers\/(\d+)/.exec(page.url())![1]);
      const stored = await h.app.inject({ method: 'GET', url: `/api/v2/subscribers/${id}`, headers });
      assert.equal(stored.json().html_email, html, email);
    }
  });

  test('screenshots and accessibility: subscribers, a subscriber, blacklist, dashboard', async () => {
    const s = await createSubscriber(h.app.db, { email: 'pictured@example.com', confirmed: true });
    await createBounce(h.app.db, { subscriberId: s.id, status: 'bounced list message', comment: '552 mailbox full' });
    await screenshots(h, session, 'subscribers', '/admin/subscribers', (page) => page.getByText(/shown of/).waitFor());
    const club = await createList(h.app.db, { name: 'Pictured list' });
    await subscribe(h.app.db, club.id, s.id);
    await screenshots(h, session, 'subscribers-by-list', `/admin/subscribers?list=${club.id}`, (page) => page.getByText('1 shown of 1').waitFor());
    await screenshots(h, session, 'subscriber', `/admin/subscribers/${s.id}`, (page) =>
      page.getByRole('button', { name: 'Save attributes' }).waitFor(),
    );
    await screenshots(h, session, 'blacklist', '/admin/blacklist?email=nobody%40example.com', (page) =>
      page.getByText('is not blacklisted').waitFor(),
    );
    await screenshots(h, session, 'dashboard', '/admin/', (page) => page.locator('.chart canvas').first().waitFor());
  });
});
