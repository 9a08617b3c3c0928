import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { browserSkip, openSignedIn, screenshots, screenshotsOff, SCREENSHOTS, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

/** The page's clipboard text (the tests' tsconfig has no DOM types). */
const CLIPBOARD = '(() => navigator.clipboard.readText())()';

/**
 * The Sign-up forms view (issue 26) against the service: a form made from nothing to live, each setting checked through
 * the API, the public form it publishes, the embed code copied, a refused value shown beside its field, keyboard use.
 */
describe('console: sign-up forms', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  let headers: Record<string, string>;
  const ids = { news: 0, events: 0, staff: 0, plant: 0, region: 0 };
  const api = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => {
    const res = await h.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json() as Record<string, unknown> & { id: number };
  };

  before(async () => {
    ({ harness: h, session, headers } = await startConsoleSignedIn({ loginName: 'root-admin' }));
    ids.news = (await api('POST', '/api/v2/lists', { name: 'Garden news', public: true })).id;
    ids.events = (await api('POST', '/api/v2/lists', { name: 'Plant swaps', public: true })).id;
    ids.staff = (await api('POST', '/api/v2/lists', { name: 'Committee', public: false })).id;
    ids.plant = (await api('POST', '/api/v2/attributes', { name: 'Favourite plant', type: 'textline' })).id;
    ids.region = (await api('POST', '/api/v2/attributes', { name: 'Region', type: 'select', options: [{ name: 'North' }, { name: 'South' }] })).id;
  });
  after(async () => h?.close());

  test('create a form, tick lists and attributes, set texts and look, a refused colour, activate, the public form, copy the embed code', async () => {
    const page = await openSignedIn(h, session, '/admin/signup-forms');
    await page.getByText('No sign-up forms yet').waitFor();
    await page.getByRole('button', { name: 'New sign-up form' }).click();
    await page.getByRole('dialog').getByLabel('Title').fill('Join the garden club');
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Join the garden club', level: 1 }).waitFor();
    const id = Number(/signup-forms\/(\d+)$/.exec(page.url())?.[1]);
    assert.ok(id > 0, page.url());
    assert.deepEqual(await api('GET', `/api/v2/subscribe-pages/${id}/data`), []);

    // Only public lists are offered; active with none ticked is refused before anything is written.
    const listsBox = page.getByRole('group', { name: 'Lists offered' });
    assert.deepEqual(await listsBox.getByRole('checkbox').evaluateAll((boxes) => boxes.length), 2);
    await page.getByLabel('Active (the public form takes sign-ups)').check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('A form can only be active once it offers a public list').waitFor();
    assert.equal((await api('GET', `/api/v2/subscribe-pages/${id}`)).active, false);
    await page.getByLabel('Active (the public form takes sign-ups)').uncheck();

    // Ticked in this order: the form offers them in this order.
    await listsBox.getByLabel('Plant swaps').check();
    await listsBox.getByLabel('Garden news').check();
    const order = () => listsBox.getByRole('listitem').allTextContents();
    assert.deepEqual(await order(), ['Plant swaps↑↓', 'Garden news↑↓']);
    await listsBox.getByRole('button', { name: 'Move Garden news up' }).click();
    assert.deepEqual(await order(), ['Garden news↑↓', 'Plant swaps↑↓']);
    const attributes = page.getByRole('group', { name: 'Attributes asked' });
    await attributes.getByLabel(/Region/).check();
    await attributes.getByLabel(/Favourite plant/).check();
    await page.getByLabel('Heading').fill('Grow with us');
    await page.getByLabel('Introduction').fill('Seasonal tips.\nNo spam.');
    await page.getByLabel('Button text').fill('Count me in');
    await page.getByLabel('Thank-you text').fill('Thanks: look for our mail.');
    await page.getByLabel('Footer').fill('The Garden Club, Elm Street 1');
    await page.getByLabel('Language').selectOption('en');
    await page.getByLabel('Double opt-in').uncheck();
    await page.getByLabel('Ask for the address twice').check();
    await page.getByLabel('Accent colour', { exact: true }).fill('teal');
    await page.getByLabel('Custom CSS').fill('.card h1 { letter-spacing: 0.02em; }');
    await page.getByRole('button', { name: 'Save', exact: true }).click();

    // The API refuses the colour: its message beside the field; every other setting was written.
    await page.getByText('The accent colour must be a hex colour such as #2557d6.').waitFor();
    await page.getByText('One field was refused').waitFor();
    assert.equal(await page.getByLabel('Accent colour', { exact: true }).getAttribute('aria-invalid'), 'true');
    if (!screenshotsOff()) {
      await page.getByLabel('Accent colour', { exact: true }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, 'signup-form-refused-light-desktop.png') });
    }
    await page.getByLabel('Pick a colour').fill('#1a7f5a');
    assert.equal(await page.getByLabel('Accent colour', { exact: true }).inputValue(), '#1a7f5a');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved: accent colour.').waitFor();

    const data = (await h.app.inject({ method: 'GET', url: `/api/v2/subscribe-pages/${id}/data`, headers })).json() as unknown[];
    assert.deepEqual(
      data,
      [
        ['accent_color', '#1a7f5a'],
        ['attributes', `${ids.region},${ids.plant}`],
        ['button', 'Count me in'],
        ['custom_css', '.card h1 { letter-spacing: 0.02em; }'],
        ['double_optin', 'no'],
        ['emaildoubleentry', 'yes'],
        ['footer', 'The Garden Club, Elm Street 1'],
        ['header', 'Grow with us'],
        ['intro', 'Seasonal tips.\nNo spam.'],
        ['language', 'en'],
        ['lists', `${ids.news},${ids.events}`],
        ['thankyoupage', 'Thanks: look for our mail.'],
      ].map(([name, value]) => ({ id, name, data: value })),
    );

    // The preview shows the saved form, though the page is not live yet.
    const preview = page.frameLocator('iframe[title="Preview of the sign-up form"]');
    await preview.getByRole('heading', { name: 'Grow with us' }).waitFor();
    await preview.getByText('Plant swaps').waitFor();

    await page.getByLabel('Active (the public form takes sign-ups)').check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved: made active.').waitFor();
    assert.equal((await api('GET', `/api/v2/subscribe-pages/${id}`)).active, true);

    // The embed code and the address, copied as the API gives them.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    const embed = await api('GET', `/api/v2/subscribe-pages/${id}/embed`);
    await page.getByRole('button', { name: 'Copy the embed code' }).click();
    await page.getByText('Embed code copied.').waitFor();
    assert.equal(await page.evaluate(CLIPBOARD), embed.html);
    await page.getByRole('button', { name: 'Copy the address' }).click();
    await page.getByText('Address copied.').waitFor();
    assert.equal(await page.evaluate(CLIPBOARD), embed.url);
    assert.equal(await page.getByLabel('Hosted form').inputValue(), embed.url);

    // The public form as a visitor gets it: the heading, the lists, the attributes, the address twice.
    const visitor = await h.newPage();
    await visitor.goto(`/subscribe/${id}`);
    await visitor.getByRole('heading', { name: 'Grow with us' }).waitFor();
    assert.deepEqual(await visitor.locator('label[for^="lists-"]').allTextContents(), ['Garden news', 'Plant swaps']);
    await visitor.getByLabel(/Favourite plant/).waitFor();
    await visitor.getByLabel(/Region/).waitFor();
    await visitor.getByLabel(/E-mail address again/).waitFor();
    assert.equal(await visitor.getByText('Committee').count(), 0);
    await visitor.getByRole('button', { name: 'Count me in' }).waitFor();

    // The table: active, its lists, a link to the public form.
    await page.getByRole('link', { name: 'Sign-up forms' }).first().click();
    const row = page.getByRole('row', { name: /Join the garden club/ });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /Active.*Garden news, Plant swaps.*Open/);
    assert.equal(await row.getByRole('link', { name: /public form/ }).getAttribute('href'), `/subscribe/${id}`);

    await screenshots(h, session, 'signup-forms', '/admin/signup-forms', (p) => p.getByRole('row', { name: /Join the garden club/ }).waitFor());
    await screenshots(h, session, 'signup-form-editor', `/admin/signup-forms/${id}`, (p) =>
      p.frameLocator('iframe[title="Preview of the sign-up form"]').getByRole('heading', { name: 'Grow with us' }).waitFor(),
    );
    // Chromium's full-page pictures often leave the preview blank (a sandboxed frame is drawn by a process of its own,
    // and a page taller than the window is pieced together): pictures of the frame itself show what the operator sees.
    if (screenshotsOff()) return;
    for (const [scheme, phone] of [
      ['light', false],
      ['dark', true],
    ] as const) {
      const p = await openSignedIn(h, session, `/admin/signup-forms/${id}`, { phone, colorScheme: scheme });
      await p.frameLocator('iframe[title="Preview of the sign-up form"]').getByRole('heading', { name: 'Grow with us' }).waitFor();
      const file = `signup-form-preview-${scheme}-${phone ? 'phone' : 'desktop'}.png`;
      await p.locator('iframe[title="Preview of the sign-up form"]').screenshot({ path: join(SCREENSHOTS, file) });
      await p.context().close();
    }
  });

  test('keyboard: tick a list with Space, save with Enter from a text field; a form active without a list is marked', async () => {
    const made = await api('POST', '/api/v2/subscribe-pages', { title: 'Left empty', active: true });
    const page = await openSignedIn(h, session, '/admin/signup-forms');
    const row = page.getByRole('row', { name: /Left empty/ });
    await row.getByText('No list to join: takes no sign-ups').waitFor();

    await page.goto(`/admin/signup-forms/${made.id}`);
    await page.getByText(/This form is active but offers no public list/).waitFor();
    await page.getByRole('group', { name: 'Lists offered' }).getByLabel('Garden news').focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement.closest("label").textContent.trim()'), 'Plant swaps');
    await page.getByLabel('Title', { exact: true }).focus();
    await page.keyboard.press('End');
    await page.keyboard.type(' (now open)');
    await page.keyboard.press('Enter');
    await page.getByText('Saved: title, lists offered.').waitFor();
    assert.equal((await api('GET', `/api/v2/subscribe-pages/${made.id}`)).title, 'Left empty (now open)');
    // The warning goes once the saved page is read back (after the message, on a busy machine a moment later).
    await page.getByText(/This form is active but offers no public list/).waitFor({ state: 'detached' });

    // Deleting asks first.
    await page.goto('/admin/signup-forms');
    await page
      .getByRole('row', { name: /Left empty/ })
      .getByRole('button', { name: /Delete/ })
      .click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Delete sign-up form' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('“Left empty (now open)” deleted.').waitFor();
    assert.equal((await h.app.inject({ method: 'GET', url: `/api/v2/subscribe-pages/${made.id}`, headers })).statusCode, 404);
  });

  test('an administrator without the subscribers privilege has no menu entry, and the page says they are not allowed', async () => {
    const s = await h.app.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    const page = await openSignedIn(h, { key: s.key, id: s.sessionId }, '/admin/signup-forms');
    await page.getByText(/it needs the subscribers privilege/).waitFor();
    const menu = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    assert.ok(!menu.includes('Sign-up forms'));
  });
});
