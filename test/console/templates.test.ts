import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createBounce, createCampaign, createSubscriber } from '../factories.js';
import { browserSkip, openSignedIn, screenshots, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

/* Issue 12, slice tmpl: templates (upload, checks, preview, images), bounce rules (try, save, reorder), bounces. */

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const BAD_FILE = [
  '<!DOCTYPE html>',
  '<html><body>',
  '<h1>Our newsletter</h1>',
  '<a href="/relative/page">Read online</a>',
  '[CONTENT]',
  '<img src="logo.png" alt="Logo">',
  '</body></html>',
].join('\n');
const GOOD_FILE = [
  '<!DOCTYPE html>',
  '<html><body>',
  '<h1>Our newsletter</h1>',
  '<a href="https://example.com/online">Read online</a>',
  '<div class="content">[CONTENT]</div>',
  `<img src="data:image/png;base64,${PIXEL}" width="1" height="1" alt="Dot">`,
  '<img src="https://cdn.example.com/logo.png" alt="Logo">',
  '</body></html>',
].join('\n');
const BOUNCE_TEXT = [
  'From: MAILER-DAEMON@mx.example.net',
  'Subject: Undelivered Mail Returned to Sender',
  '',
  '<gone@example.com>: host mx.example.com said: 550 5.1.1 User unknown in virtual mailbox table',
].join('\n');

describe('console: templates, bounces and bounce rules', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  let files: string;
  const headers = () => ({ 'php-auth-pw': session.key });
  before(async () => {
    ({ harness: h, session } = await startConsoleSignedIn({ loginName: 'tmpl-admin' }));
    files = mkdtempSync(join(tmpdir(), 'mailroom-templates-'));
    writeFileSync(join(files, 'bad.html'), BAD_FILE);
    writeFileSync(join(files, 'newsletter.html'), GOOD_FILE);
  });
  after(async () => h?.close());

  test('a template uploaded as a file: the checks name what is wrong and where; a good file is saved with its images', async () => {
    const page = await openSignedIn(h, session, '/admin/templates');
    await page.getByRole('link', { name: 'New template' }).click();
    await page.getByLabel('Title').fill('Newsletter');
    // The editor loads with the view and is named by its label.
    await page.getByRole('textbox', { name: 'HTML (must contain [CONTENT])' }).waitFor();
    await page.getByLabel('Upload an HTML file as the template').setInputFiles(join(files, 'bad.html'));
    const results = page.getByTestId('check-results');
    await results.getByText('“bad.html” was not saved:').waitFor();
    await results.getByText('Not full URLs: /relative/page').waitFor();
    await results.getByText('Image "logo.png" is not a full URL.').waitFor();
    // A problem's line moves the editor's cursor there.
    await results.getByRole('button', { name: 'line 6' }).click();
    await page.locator('.cm-activeLine').filter({ hasText: 'logo.png' }).waitFor();
    assert.equal((await h.app.inject({ method: 'GET', url: '/api/v2/templates', headers: headers() })).json().pagination.total, 0);

    // The API's image check wants full http(s) URLs, so a template with an embedded (data:) image is saved without it.
    await page.getByLabel('Images are full URLs').uncheck();
    await page.getByLabel('Upload an HTML file as the template').setInputFiles(join(files, 'newsletter.html'));
    await results.getByText('“newsletter.html” uploaded and saved. Checks passed: links are full URLs.').waitFor();
    await page.waitForURL(/\/admin\/templates\/\d+$/);
    await page.getByRole('heading', { name: 'Newsletter', level: 1 }).waitFor();
    const images = page.getByRole('region', { name: 'Images in this template (2)' });
    await images.getByRole('img', { name: /Embedded image/ }).waitFor();
    await images.getByText('https://cdn.example.com/logo.png').waitFor();
    const list = (await h.app.inject({ method: 'GET', url: '/api/v2/templates', headers: headers() })).json();
    assert.equal(list.items[0].content, GOOD_FILE);

    // The preview is sandboxed (no scripts, no same origin) and shows the sample body in place of [CONTENT].
    const frame = page.locator('iframe[title="Template preview"]');
    assert.equal(await frame.getAttribute('sandbox'), '');
    await page.frameLocator('iframe[title="Template preview"]').getByText('Sample campaign heading').waitFor();

    // Editing in the code editor and saving; a placeholder inserted at the cursor through the editor's handle is
    // covered by camp's campaign editor; here the text is typed.
    const editor = page.getByRole('textbox', { name: 'HTML (must contain [CONTENT])' });
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n<!-- edited -->');
    await page.getByText('Unsaved changes').waitFor();
    // Tab indents inside the editor; Escape then Tab leaves it (no keyboard trap), to the next control.
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    assert.equal(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { closest(s: string): unknown } | null } }).document.activeElement?.closest(
            '.cm-editor',
          ) ?? null,
      ),
      null,
    );
    assert.ok(
      await page
        .getByLabel('Phone width')
        .evaluate((el) => el === (el as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement),
    );
    await page.getByRole('button', { name: 'Save template' }).click();
    await results.getByText('Template saved.', { exact: false }).waitFor();
    const saved = (await h.app.inject({ method: 'GET', url: `/api/v2/templates/${list.items[0].id}`, headers: headers() })).json();
    assert.ok(saved.content.endsWith('<!-- edited -->'));

    // The checks run on an unsaved edit too: a relative link typed into the editor is found with its line, and the
    // saved template is left as it was.
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n<a href="/unsaved-page">draft</a>');
    await page.getByRole('button', { name: 'Run the checks now' }).click();
    await results.getByText('The checks found, in the HTML as it is now (not saved):').waitFor();
    await results.getByText('Not full URLs: /unsaved-page').waitFor();
    await results.getByRole('button', { name: /^line \d+$/ }).click();
    await page.locator('.cm-activeLine').filter({ hasText: '/unsaved-page' }).waitFor();
    await page.getByLabel('Links are full URLs').uncheck();
    await page.getByRole('button', { name: 'Run the checks now' }).click();
    await results.getByText('The HTML as it is now (not saved yet) follows the rules. No checks were chosen.').waitFor();
    const unchanged = (await h.app.inject({ method: 'GET', url: `/api/v2/templates/${saved.id}`, headers: headers() })).json();
    assert.equal(unchanged.content, saved.content);
    // assertAccessible leaves out the sandboxed preview frame (axe cannot run inside it; it holds the template's HTML).
    await screenshots(h, session, 'template-editor', `/admin/templates/${saved.id}`, async (p) => {
      await p.frameLocator('iframe[title="Template preview"]').getByText('Sample campaign heading').waitFor();
      await p.getByRole('textbox', { name: 'HTML (must contain [CONTENT])' }).waitFor();
    });
    await screenshots(h, session, 'templates', '/admin/templates', (p) => p.getByRole('link', { name: 'Newsletter' }).waitFor());
  });

  test('a template started from a built-in one opens in the editor', async () => {
    const page = await openSignedIn(h, session, '/admin/templates');
    await page.getByRole('button', { name: 'From a built-in template' }).click();
    const dialog = page.getByRole('dialog', { name: 'Start from a built-in template' });
    await dialog.getByRole('button', { name: 'Use Responsive template' }).click();
    await page.getByRole('heading', { name: 'Responsive template', level: 1 }).waitFor();
    await page.frameLocator('iframe[title="Template preview"]').getByText('Sample campaign heading').waitFor();
    await page.goto('/admin/templates');
    await page.getByRole('link', { name: 'Responsive template' }).waitFor();
  });

  test('a template is deleted after the dialog says what happens to campaigns using it', async () => {
    const created = await h.app.inject({
      method: 'POST',
      url: '/api/v2/templates',
      headers: headers(),
      payload: { title: 'Old design', content: '<p>[CONTENT]</p>' },
    });
    const page = await openSignedIn(h, session, '/admin/templates');
    await page.getByRole('button', { name: 'Delete Old design' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this template?' });
    await dialog.getByText(/go on without a template/).waitFor();
    await dialog.getByRole('button', { name: 'Delete template' }).click();
    await page.getByText('Template “Old design” was deleted.').waitFor();
    const gone = await h.app.inject({ method: 'GET', url: `/api/v2/templates/${created.json().id}`, headers: headers() });
    assert.equal(gone.statusCode, 404);
  });

  test('a bounce rule tried on a pasted bounce (a bad pattern explained), saved, and moved up', async () => {
    await h.app.inject({
      method: 'POST',
      url: '/api/v2/bounces/regex',
      headers: headers(),
      payload: { regex: '/mailbox is full/i', action: 'deletebounce', status: 'active', list_order: 10 },
    });
    const page = await openSignedIn(h, session, '/admin/bounces');
    await page.getByRole('link', { name: 'Bounce rules' }).click();
    await page.getByRole('button', { name: 'New rule' }).click();
    await page.getByLabel('Pattern').fill('/user (\\w+) \\1/');
    await page.getByLabel('Bounce text').fill(BOUNCE_TEXT);
    await page.getByRole('button', { name: 'Try the pattern' }).click();
    await page
      .getByTestId('try-result')
      .getByText(/Backreferences .* are not supported/)
      .waitFor();
    await page.getByLabel('Pattern').fill('/user unknown/i');
    await page.getByRole('button', { name: 'Try the pattern' }).click();
    const result = page.getByTestId('try-result');
    await result.getByText('Matches').waitFor();
    assert.equal(await result.locator('mark').textContent(), 'User unknown');
    await page.getByLabel('Action').selectOption('unconfirmuser');
    await page.getByLabel('Comment').fill('Address does not exist');
    await screenshots(h, session, 'bounce-rules', '/admin/bounce-rules', (p) =>
      p.getByRole('button', { name: 'Move /mailbox is full/i down' }).waitFor(),
    );
    // The rule form with a tried pattern.
    await screenshots(h, session, 'bounce-rule-try', '/admin/bounce-rules', async (p) => {
      await p.getByRole('button', { name: 'New rule' }).click();
      await p.getByLabel('Pattern').fill('/user unknown/i');
      await p.getByLabel('Bounce text').fill(BOUNCE_TEXT);
      await p.getByRole('button', { name: 'Try the pattern' }).click();
      await p.getByTestId('try-result').locator('mark').waitFor();
    });
    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.getByText('Rule /user unknown/i created.').waitFor();
    let rules = (await h.app.inject({ method: 'GET', url: '/api/v2/bounces/regex', headers: headers() })).json();
    assert.deepEqual(
      rules.map((r: { regex: string; action: string; comment: string | null }) => [r.regex, r.action, r.comment]),
      [
        ['/mailbox is full/i', 'deletebounce', null],
        ['/user unknown/i', 'unconfirmuser', 'Address does not exist'],
      ],
    );
    await page.getByRole('button', { name: 'Move /user unknown/i up' }).click();
    await page.getByText('Rule /user unknown/i moved up.').waitFor();
    rules = (await h.app.inject({ method: 'GET', url: '/api/v2/bounces/regex', headers: headers() })).json();
    assert.deepEqual(
      rules.map((r: { regex: string }) => r.regex),
      ['/user unknown/i', '/mailbox is full/i'],
    );
    // Editing opens the form with the rule, including the try box.
    await page.getByRole('button', { name: 'Edit /mailbox is full/i' }).click();
    await page.getByRole('heading', { name: 'Edit rule /mailbox is full/i' }).waitFor();
    await page.getByLabel('Status').selectOption('invite');
    await page.getByRole('button', { name: 'Save rule' }).click();
    await page.getByText('Rule /mailbox is full/i saved.').waitFor();
  });

  test('bounces: linked to subscriber and campaign, filtered, the raw message opened, one deleted', async () => {
    const campaign = await createCampaign(h.app.db, { subject: 'November news' });
    const subscriber = await createSubscriber(h.app.db, { email: 'gone@example.com' });
    const bounce = await createBounce(h.app.db, {
      status: 'bounced list message',
      header: 'From: MAILER-DAEMON@mx.example.net\nSubject: Undelivered Mail Returned to Sender',
      data: '550 5.1.1 User unknown in virtual mailbox table',
      campaignId: campaign.id,
      subscriberId: subscriber.id,
      comment: 'User unknown',
    });
    await createBounce(h.app.db, { status: 'unidentified', data: 'Out of office' });
    const page = await openSignedIn(h, session, '/admin/bounces');
    await page.getByRole('link', { name: 'gone@example.com' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'gone@example.com' }).getAttribute('href'), `/admin/subscribers/${subscriber.id}`);
    assert.equal(await page.getByRole('link', { name: 'November news' }).getAttribute('href'), `/admin/campaigns/${campaign.id}`);
    await page.getByLabel('Status').fill('bounced list message');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=bounced/);
    await page.getByText('1 shown of 1').waitFor();

    await page.getByRole('button', { name: `Raw message of bounce ${bounce.id}` }).click();
    const dialog = page.getByRole('dialog', { name: `Raw message of bounce ${bounce.id}` });
    await dialog.getByText('550 5.1.1 User unknown in virtual mailbox table').waitFor();
    await dialog.getByText('Subject: Undelivered Mail Returned to Sender', { exact: false }).waitFor();
    await page.screenshot({ path: 'test-results/screenshots/bounce-raw-light-desktop.png' });
    await dialog.getByRole('button', { name: 'Close' }).click();

    await screenshots(h, session, 'bounces', '/admin/bounces', (p) => p.getByRole('link', { name: 'gone@example.com' }).waitFor());

    await page.getByRole('button', { name: `Delete bounce ${bounce.id}` }).click();
    await page.getByRole('dialog', { name: 'Delete this bounce?' }).getByRole('button', { name: 'Delete bounce' }).click();
    await page.getByText('The bounce was deleted.').waitFor();
    const gone = await h.app.inject({ method: 'GET', url: `/api/v2/bounces/${bounce.id}`, headers: headers() });
    assert.equal(gone.statusCode, 404);
  });
});
