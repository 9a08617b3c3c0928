import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startWorker } from '../../src/sending/worker.js';
import { createList, createSubscriber, subscribe } from '../factories.js';
import { rawHeader } from '../sending/compose-fixtures.js';
import { mailsOf } from '../sending/send-fixtures.js';
import { browserSkip, openSignedIn, SCREENSHOTS, screenshots, screenshotsOff, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

/*
 * Issue 26, slice editor: the campaign body in five formats, conversion between them (at once where lossless, asked
 * first where not), the keyboard save, and a visual campaign sent through a real worker into the SMTP sink, parsed
 * back and its HTML rendered in Chromium at desktop and phone width.
 */
describe('console: the campaign editor', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  let headers: Record<string, string>;
  let visualId = 0;
  before(async () => {
    ({ harness: h, session, headers } = await startConsoleSignedIn());
  });
  after(async () => h?.close());

  // The editor view loads its editors lazily (CodeMirror, TipTap): on a loaded machine that takes longer than the
  // harness's 10 s default.
  const open = async (path: string, options: { phone?: boolean } = {}) => {
    const page = await openSignedIn(h, session, path, options);
    page.setDefaultTimeout(30_000);
    return page;
  };
  const format = (page: Page, name: string) => page.getByRole('group', { name: 'Format' }).getByRole('button', { name, exact: true });
  const pressed = async (page: Page, name: string) => (await format(page, name).getAttribute('aria-pressed')) === 'true';
  const campaign = async (id: number) => {
    const res = await h.app.inject({ method: 'GET', url: `/api/v2/campaigns/${id}`, headers });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as {
      message_content: { text: string; editor: { format: string; source: string | null; outdated: boolean } | null };
      message_format: { send_format: string };
    };
  };
  const idOf = (page: Page) => Number(/campaigns\/(\d+)$/.exec(page.url())![1]);
  const saveWithKeyboard = async (page: Page) => {
    await page.keyboard.press('ControlOrMeta+s');
    await page.getByText('Saved.', { exact: true }).waitFor();
  };
  const block = (page: Page, type: string) => page.locator(`.visual-editor > .block-list > ol > li[data-block=${type}]`).last();

  test('visual: blocks saved with Ctrl+S, sent by a worker; the mail has the unsubscribe link, the pixel, a sane text part and fits a phone', async () => {
    const list = await createList(h.app.db, { name: 'Visual readers' });
    const reader = await createSubscriber(h.app.db, { email: 'visual.reader@example.com', htmlEmail: true, confirmed: true });
    await subscribe(h.app.db, list.id, reader.id);

    const page = await open('/admin/campaigns/new');
    await page.getByLabel('Subject').fill('Autumn letter');
    await page.getByLabel('From', { exact: true }).fill('News Desk <news@example.com>');
    await page.getByText('Ctrl+S / ⌘S saves').waitFor();
    await page.locator('.cm-content').waitFor({ timeout: 30_000 });
    // HTML → visual keeps what is sent (one HTML block): no question.
    await format(page, 'Visual').click();
    await page.locator('.visual-editor').waitFor();
    assert.equal(await page.getByRole('dialog').isVisible(), false);
    assert.ok(await pressed(page, 'Visual'));
    assert.match(await block(page, 'Html').getByRole('textbox', { name: 'HTML', exact: true }).inputValue(), /\[UNSUBSCRIBE\]/);

    const addAtEnd = async (label: string) => {
      const adder = page.locator('.visual-editor > .block-list > .add-block');
      await adder.getByLabel('Add a block at the end').selectOption({ label });
      await adder.getByRole('button', { name: `Add ${label.toLowerCase()}` }).click();
    };
    await addAtEnd('Heading');
    await block(page, 'Heading').getByLabel('Heading text').fill('Autumn Letter for [FIRST NAME%%you]');
    await addAtEnd('Text');
    await block(page, 'Text').getByLabel(/^Text/).fill('Our **news**, and [the archive](https://example.com/archive).');
    await addAtEnd('Button');
    await block(page, 'Button').getByLabel('Button text').fill('Read more');
    await block(page, 'Button').getByLabel('Link address').fill('https://example.com/more');
    await addAtEnd('Image');
    await block(page, 'Image').getByLabel('Image address').fill('https://example.com/photo.png');
    await block(page, 'Image')
      .getByLabel(/Alternative text/)
      .fill('Falling leaves');
    await addAtEnd('Columns');
    for (const [index, words] of [
      [1, 'Left column words'],
      [2, 'Right column words'],
    ] as const) {
      const column = page.getByRole('region', { name: `Column ${index}` });
      await column.getByLabel(`Add a block at column ${index}`).selectOption({ label: 'Text' });
      await column.getByRole('button', { name: 'Add text' }).click();
      await column.getByLabel(/^Text/).fill(words);
    }
    await addAtEnd('Divider');
    await addAtEnd('Spacer');
    // The first block (the old HTML) moves to the end, with the keyboard.
    await page.getByRole('button', { name: 'Move HTML 1 down' }).focus();
    for (let i = 0; i < 7; i++) await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Move HTML 8 up' }).waitFor();
    // The live preview shows the blocks as they are sent.
    await page.frameLocator('[data-testid=live-preview] iframe').getByRole('heading', { name: 'Autumn Letter for [FIRST NAME%%you]' }).waitFor();
    await page.getByLabel('Visual readers').check();

    await block(page, 'Heading').getByLabel('Heading text').focus();
    await page.keyboard.press('ControlOrMeta+s');
    await page.waitForURL(/\/admin\/campaigns\/\d+$/);
    visualId = idOf(page);
    const saved = await campaign(visualId);
    assert.equal(saved.message_content.editor?.format, 'visual');
    const doc = JSON.parse(saved.message_content.editor!.source!) as { root: { data: { childrenIds: string[] } } } & Record<string, { type: string }>;
    assert.deepEqual(
      doc.root.data.childrenIds.map((id) => doc[id]!.type),
      ['Heading', 'Text', 'Button', 'Image', 'ColumnsContainer', 'Divider', 'Spacer', 'Html'],
    );
    assert.match(saved.message_content.text, /^<table role="presentation" width="100%"/);
    // Reopened, it is the visual format again with its blocks.
    await page.locator('.visual-editor li[data-block=ColumnsContainer]').waitFor();
    assert.ok(await pressed(page, 'Visual'));
    await page
      .getByTestId('checks')
      .getByText(/No problems found/)
      .waitFor();

    // Sent for real: a worker into the SMTP sink.
    const status = await h.app.inject({ method: 'PATCH', url: `/api/v2/campaigns/${visualId}/status`, headers, payload: { status: 'submitted' } });
    assert.equal(status.statusCode, 200, status.body);
    const worker = startWorker(h.app.ctx, { pollMs: 100 });
    try {
      const deadline = Date.now() + 60_000;
      while (mailsOf(h.app.smtp, visualId).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    } finally {
      await worker.stop();
    }
    const [mail] = mailsOf(h.app.smtp, visualId);
    assert.ok(mail, 'the sink received the visual campaign');
    const html = String(mail.parsed.html);
    const unsubscribe = /<(https?:[^>]+)>/.exec(rawHeader(mail, 'List-Unsubscribe') ?? '')?.[1];
    assert.ok(unsubscribe, 'List-Unsubscribe has an address');
    assert.ok(html.includes(`href="${unsubscribe.replace(/&/g, '&amp;')}"`), 'the HTML links to the unsubscribe address');
    assert.match(html, /<img src="[^"]*\/api\/v2\/t\/open\.gif\?[^"]+" width="1" height="1" alt="">/, 'the open pixel');
    assert.match(html, /<table role="presentation"[^>]*style="max-width:600px/);

    const text = String(mail.parsed.text);
    assert.match(text, /^Autumn Letter for you$/m, 'the heading as written, not upper-cased');
    assert.doesNotMatch(text, /AUTUMN/);
    assert.match(text, /Our news, and the archive \(https?:\/\/\S+\)\./);
    assert.match(text, /^Read more \(https?:\/\/\S+\)$/m);
    assert.match(text, /Left column words\s+Right column words/);
    assert.match(text, /No longer interested\? https?:\/\/\S+|Unsubscribe/i);
    assert.doesNotMatch(text, /<|\*\*/, 'no markup in the text part');

    // The received HTML in Chromium at a desktop mail width and a phone's: it lays out, nothing runs past the screen.
    mkdirSync(SCREENSHOTS, { recursive: true });
    for (const width of [600, 375]) {
      const view = await h.newPage();
      await view.route('**/*', (route) => route.abort());
      await view.setViewportSize({ width, height: 900 });
      await view.setContent(html, { waitUntil: 'domcontentloaded' });
      const overflow = await view.evaluate(() => {
        const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
          .documentElement;
        return root.scrollWidth - root.clientWidth;
      });
      assert.equal(overflow, 0, `no horizontal overflow at ${width} px`);
      // Columns stack on a phone: the right column is below the left one there, beside it on the desktop.
      const left = await view.getByText('Left column words').boundingBox();
      const right = await view.getByText('Right column words').boundingBox();
      if (width === 375) assert.ok(right!.y > left!.y + left!.height - 1, 'columns stack at phone width');
      else assert.ok(Math.abs(right!.y - left!.y) < 2 && right!.x > left!.x, 'columns side by side at desktop width');
      await view.screenshot({ path: join(SCREENSHOTS, `campaign-visual-mail-${width}.png`), fullPage: true });
      await view.context().close();
    }
  });

  test('Markdown, rich text, HTML and plain text: lossless switches at once, lossy ones ask; each saved with the keyboard', async () => {
    const page = await open('/admin/campaigns/new');
    await page.getByLabel('Subject').fill('Formats');
    await page.getByLabel('From', { exact: true }).fill('News Desk <news@example.com>');
    await page.locator('.cm-content').waitFor();

    // HTML → Markdown may drop markup: asked, and Cancel keeps HTML.
    await format(page, 'Markdown').click();
    const dialog = page.getByRole('dialog', { name: 'Convert to Markdown?' });
    await dialog.getByText(/HTML that Markdown cannot express/).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.ok(await pressed(page, 'HTML'));
    await format(page, 'Markdown').click();
    await dialog.getByRole('button', { name: 'Convert' }).click();
    await page.getByText('Body (Markdown)').waitFor();
    assert.match(await page.locator('.cm-content').innerText(), /^Hello \[EMAIL\],\s+\[UNSUBSCRIBE\]$/);
    await page.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText('# Big news\n\nHello **[EMAIL]**, see [our site](https://example.com/site).\n\n- one\n- two\n\n[UNSUBSCRIBE]\n');
    await page.frameLocator('[data-testid=live-preview] iframe').getByRole('heading', { name: 'Big news' }).waitFor();
    // The first save of a new campaign moves to its address.
    await page.keyboard.press('ControlOrMeta+s');
    await page.waitForURL(/\/admin\/campaigns\/\d+$/);
    const id = idOf(page);
    let saved = await campaign(id);
    assert.equal(saved.message_content.editor?.format, 'markdown');
    assert.equal(
      saved.message_content.editor?.source,
      '# Big news\n\nHello **[EMAIL]**, see [our site](https://example.com/site).\n\n- one\n- two\n\n[UNSUBSCRIBE]\n',
    );
    assert.match(
      saved.message_content.text,
      /<h1>Big news<\/h1>\n<p>Hello <strong>\[EMAIL\]<\/strong>, see <a href="https:\/\/example.com\/site">our site<\/a>.<\/p>/,
    );

    // Markdown → rich text: the same headings, lists and links, so no question.
    await page.getByText('Body (Markdown)').waitFor();
    await format(page, 'Rich text').click();
    const rich = page.locator('.richtext-content');
    await rich.locator('h1', { hasText: 'Big news' }).waitFor();
    assert.equal(await page.getByRole('dialog').isVisible(), false);
    await rich.locator('li', { hasText: 'two' }).click();
    await page.keyboard.press('End');
    await page.keyboard.insertText(' and three');
    await saveWithKeyboard(page);
    saved = await campaign(id);
    assert.deepEqual(saved.message_content.editor, { format: 'richtext', source: null, outdated: false });
    assert.match(saved.message_content.text, /<li><p>two and three<\/p><\/li>/);

    // Rich text → Markdown → HTML: both lossless.
    await format(page, 'Markdown').click();
    await page.getByText('Body (Markdown)').waitFor();
    assert.match(await page.locator('.cm-content').innerText(), /# Big news[\s\S]*- two and three/);
    await format(page, 'HTML').click();
    await page.getByText('Body (HTML)').waitFor();
    assert.equal(await page.getByRole('dialog').isVisible(), false);
    assert.match(await page.locator('.cm-content').innerText(), /<h1>Big news<\/h1>/);
    await saveWithKeyboard(page);
    assert.deepEqual((await campaign(id)).message_content.editor, { format: 'html', source: null, outdated: false });

    // HTML → plain text drops the markup and makes it text-only mail: asked.
    await format(page, 'Plain text').click();
    await page.getByRole('dialog', { name: 'Convert to Plain text?' }).getByRole('button', { name: 'Convert' }).click();
    await page.getByText('Body (plain text)').waitFor();
    await page.getByText(/Sent as text only/).waitFor();
    assert.match(await page.locator('.cm-content').innerText(), /see our site \(https:\/\/example\.com\/site\)\./);
    await saveWithKeyboard(page);
    saved = await campaign(id);
    assert.equal(saved.message_format.send_format, 'text');
    assert.deepEqual(saved.message_content.editor, { format: 'text', source: null, outdated: false });
    assert.equal(
      saved.message_content.text,
      'Big news\n\nHello [EMAIL], see our site (https://example.com/site).\n\n * one\n * two and three\n\n[UNSUBSCRIBE]',
    );

    // Plain text → HTML is lossless, and sends HTML again.
    await format(page, 'HTML').click();
    await page.getByText('Body (HTML)').waitFor();
    await page.getByText('HTML with a text part').waitFor();

    // Unsaved changes are guarded: staying keeps them.
    page.once('dialog', (d) => void d.dismiss());
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Campaigns' }).click();
    assert.match(page.url(), new RegExp(`/admin/campaigns/${id}$`));
    await page.getByText('Unsaved changes', { exact: true }).waitFor();
  });

  test('a document another program outdated opens as HTML with a note', async () => {
    const created = await h.app.inject({
      method: 'POST',
      url: '/api/v2/campaigns',
      headers,
      payload: {
        content: { subject: 'Elsewhere', text: '<p>Hi</p>', editor: { format: 'markdown', source: 'Hi' } },
        format: { send_format: 'html' },
        options: { from_field: 'news@example.com' },
      },
    });
    const id = (created.json() as { id: number }).id;
    // A phpList client replaces the body and knows nothing of the Markdown.
    await h.app.inject({
      method: 'PUT',
      url: `/api/v2/campaigns/${id}`,
      headers,
      payload: {
        content: { subject: 'Elsewhere', text: '<p>Changed elsewhere [UNSUBSCRIBE]</p>' },
        format: { send_format: 'html' },
        options: { from_field: 'news@example.com' },
      },
    });
    const page = await open(`/admin/campaigns/${id}`);
    await page.getByText(/written here in the Markdown format, then changed by another program/).waitFor();
    assert.ok(await pressed(page, 'HTML'));
    assert.match(await page.locator('.cm-content').innerText(), /Changed elsewhere/);
  });

  test('screenshots: visual and rich-text editors (light/dark, desktop/phone) with axe; the phone toggles the preview', async () => {
    if (screenshotsOff()) return;
    assert.ok(visualId > 0, 'the visual campaign of the first test');
    // Draft again, so it is editable as people see it while writing.
    await h.app
      .inject({ method: 'PATCH', url: `/api/v2/campaigns/${visualId}/status`, headers, payload: { status: 'draft' } })
      .catch(() => undefined);
    const created = await h.app.inject({
      method: 'POST',
      url: '/api/v2/campaigns',
      headers,
      payload: {
        content: {
          subject: 'Rich',
          text: '<h2>Rich text</h2><p>Some <strong>bold</strong> words. [UNSUBSCRIBE]</p>',
          editor: { format: 'richtext' },
        },
        format: { send_format: 'html' },
        options: { from_field: 'news@example.com' },
      },
    });
    const richId = (created.json() as { id: number }).id;
    await screenshots(h, session, 'campaign-editor-visual', `/admin/campaigns/${visualId}`, (p) =>
      p.locator('.visual-editor').waitFor({ timeout: 30_000 }),
    );
    await screenshots(h, session, 'campaign-editor-richtext', `/admin/campaigns/${richId}`, (p) =>
      p.locator('.richtext-content h2').waitFor({ timeout: 30_000 }),
    );

    const phone = await open(`/admin/campaigns/${richId}`, { phone: true });
    await phone.locator('.richtext-content h2').waitFor({ timeout: 30_000 });
    assert.equal(await phone.getByTestId('live-preview').isVisible(), false, 'on a phone the preview waits for its toggle');
    await phone.getByRole('group', { name: 'Show' }).getByRole('button', { name: 'Preview' }).click();
    await phone.frameLocator('[data-testid=live-preview] iframe').getByRole('heading', { name: 'Rich text' }).waitFor();
    assert.equal(await phone.locator('.richtext-content').isVisible(), false);
    await phone.locator('.body-editor').screenshot({ path: join(SCREENSHOTS, 'campaign-editor-phone-preview.png') });
  });
});
