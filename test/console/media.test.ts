import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { createCampaign } from '../factories.js';
import { browserSkip, openSignedIn, screenshots, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

/* Issue 26: the media library view, the picker dialog (through the template editor) and campaign names in titles. */

/** A real picture: a gradient, in the given format. */
async function picture(format: 'png' | 'jpeg', width: number, height: number, hue: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    pixels[i * 3] = hue;
    pixels[i * 3 + 1] = Math.floor(((i % width) / width) * 255);
    pixels[i * 3 + 2] = Math.floor((Math.floor(i / width) / height) * 255);
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .toFormat(format)
    .toBuffer();
}

describe('console: media library and campaign names', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  let adminId: number;
  let files: string;
  const headers = () => ({ 'php-auth-pw': session.key });
  before(async () => {
    ({ harness: h, session, adminId } = await startConsoleSignedIn({ loginName: 'media-admin' }));
    files = mkdtempSync(join(tmpdir(), 'mailroom-media-'));
    writeFileSync(join(files, 'harbour.jpg'), await picture('jpeg', 800, 600, 30));
    writeFileSync(join(files, 'logo.png'), await picture('png', 300, 120, 200));
    writeFileSync(join(files, 'notes.png'), 'not really a picture');
  });
  after(async () => h?.close());

  test('upload by button and by drop, with the refusal of a non-image; copy an address; delete an unused image', async () => {
    const page = await openSignedIn(h, session, '/admin/media');
    await page.getByRole('heading', { name: 'Media', level: 1 }).waitFor();
    await page.getByText('No images yet').waitFor();
    // The button is what the keyboard reaches; it opens the file chooser.
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Choose images…' }).click();
    await (await chooser).setFiles(join(files, 'harbour.jpg'));
    await page.getByText('Uploaded harbour.jpg.').waitFor();
    const grid = page.getByRole('list', { name: 'Images' });
    await grid.getByText('800 × 600').waitFor();
    // The thumbnail is loaded from this service.
    const thumb = grid.getByRole('img', { name: 'harbour.jpg' });
    await thumb.waitFor();
    assert.ok(await thumb.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth === 320));

    // Dropped files go the same way; a renamed non-image is refused with the API's reason.
    const drop = async (name: string, type: string, base64: string) => {
      const transfer = await page.evaluateHandle(
        ({ name, type, base64 }) => {
          const g = globalThis as unknown as {
            DataTransfer: new () => { items: { add(file: unknown): void } };
            File: new (parts: unknown[], name: string, options: { type: string }) => unknown;
            Uint8Array: typeof Uint8Array;
            atob(text: string): string;
          };
          const bytes = g.Uint8Array.from(g.atob(base64), (c) => c.charCodeAt(0));
          const transfer = new g.DataTransfer();
          transfer.items.add(new g.File([bytes], name, { type }));
          return transfer;
        },
        { name, type, base64 },
      );
      await page.getByTestId('media-drop').dispatchEvent('drop', { dataTransfer: transfer });
    };
    await drop('logo.png', 'image/png', (await picture('png', 300, 120, 200)).toString('base64'));
    await page.getByText('Uploaded logo.png.').waitFor();
    await grid.getByText('300 × 120').waitFor();
    await drop('notes.png', 'image/png', Buffer.from('not really a picture').toString('base64'));
    await page.getByText('notes.png: The file is not a PNG, JPEG, GIF or WebP image').waitFor();

    const list = (await h.app.inject({ method: 'GET', url: '/api/v2/media', headers: headers() })).json();
    assert.deepEqual(
      list.items.map((m: { filename: string }) => m.filename),
      ['logo.png', 'harbour.jpg'],
    );

    await page.getByRole('button', { name: 'Copy the address of logo.png' }).click();
    await page.getByText(/The address of logo\.png is copied\.|the address is http/).waitFor();

    // An image a campaign uses cannot be deleted: the card says by what.
    const harbour = list.items[1] as { id: number; url: string };
    await createCampaign(h.app.db, { subject: 'Harbour news', name: 'Harbour letter', ownerId: adminId, body: `<img src="${harbour.url}" alt="">` });
    await page.reload();
    await grid.getByText('Used by campaign “Harbour letter”').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Delete harbour.jpg' }).isDisabled(), true);
    await page.getByRole('button', { name: 'Delete logo.png' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this image?' });
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('logo.png was deleted.').waitFor();
    assert.equal((await h.app.inject({ method: 'GET', url: '/api/v2/media', headers: headers() })).json().pagination.total, 1);
    await page.context().close();
  });

  test('the picker inserts the chosen image into the template editor, with alt text and size, by keyboard', async () => {
    const page = await openSignedIn(h, session, '/admin/templates/new');
    // The code editor loads lazily: given longer on a busy machine.
    await page.getByRole('textbox', { name: 'HTML (must contain [CONTENT])' }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Insert image…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Choose an image' });
    await dialog.getByRole('button', { name: 'Insert harbour.jpg, 800 × 600' }).waitFor();
    await dialog.getByLabel('Alternative text').fill('The harbour at dawn');
    await dialog.getByRole('button', { name: 'Insert harbour.jpg, 800 × 600' }).focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    const html = (await page.getByRole('textbox', { name: 'HTML (must contain [CONTENT])' }).textContent()) ?? '';
    assert.match(
      html,
      /<img src="http:\/\/localhost:8080\/media\/[A-Za-z0-9_-]{22}\/harbour\.jpg" alt="The harbour at dawn" width="800" height="600"/,
    );
    // Escape closes it without inserting.
    await page.getByRole('button', { name: 'Insert image…' }).click();
    await dialog.getByRole('button', { name: 'Insert harbour.jpg, 800 × 600' }).waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.context().close();
  });

  test('campaign names in tables and titles; an unnamed campaign shows its subject with readable placeholders', async () => {
    const old = await createCampaign(h.app.db, {
      subject: 'Hi [FIRST NAME%%you], news',
      ownerId: adminId,
      body: '<p>x</p>',
      fromField: 'a@example.com',
    });
    const page = await openSignedIn(h, session, '/admin/campaigns');
    await page.getByTestId('campaigns').getByRole('link', { name: 'Hi ‹First name›, news' }).click({ timeout: 30_000 });
    await page.getByRole('heading', { name: 'Hi ‹First name›, news', level: 1 }).waitFor();
    assert.equal(await page.title(), 'Hi ‹First name›, news · Mailroom');
    await page.getByLabel('Name', { exact: true }).fill('October letter');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('heading', { name: 'October letter', level: 1 }).waitFor();
    const saved = (await h.app.inject({ method: 'GET', url: `/api/v2/campaigns/${old.id}`, headers: headers() })).json();
    assert.deepEqual([saved.message_content.name, saved.message_content.subject], ['October letter', 'Hi [FIRST NAME%%you], news']);
    await page.goto(`/admin/campaigns/${old.id}/report`);
    await page.getByRole('heading', { name: 'Report: October letter', level: 1 }).waitFor();
    await page.goto('/admin/campaigns');
    await page.getByTestId('campaigns').getByRole('link', { name: 'October letter' }).waitFor();
    await page.context().close();
  });

  test('screenshots: media view and picker (light/dark, desktop/phone) with axe', async () => {
    await screenshots(h, session, 'media-library', '/admin/media', (p) => p.getByRole('list', { name: 'Images' }).getByText('800 × 600').waitFor());
    // assertAccessible leaves out the template page's sandboxed preview frame, where axe cannot run.
    await screenshots(h, session, 'media-picker', '/admin/templates/new', async (p) => {
      await p.getByRole('textbox', { name: 'HTML (must contain [CONTENT])' }).waitFor({ timeout: 30_000 });
      await p.getByRole('button', { name: 'Insert image…' }).click();
      await p
        .getByRole('dialog', { name: 'Choose an image' })
        .getByRole('button', { name: /Insert harbour\.jpg/ })
        .waitFor();
    });
  });
});
