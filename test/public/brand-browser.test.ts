import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { browserSkip, startPublic, type PublicHarness } from './browser.js';
import { signupFixture } from './fixtures.js';

/*
 * The organisation's name and logo (issue 26) on a public page in a real browser: the logo set through the settings
 * API loads, is kept small, reads as the organisation's name; screenshots in both schemes at both widths, axe clean.
 */

const skip = browserSkip();
let h: PublicHarness;
let headers: Record<string, string>;
before(async () => {
  if (skip) return;
  h = await startPublic({ settingsFromEnv: [] });
  headers = (await h.app.adminWithSession()).headers;
});
after(async () => {
  if (!skip) await h.close();
});

/** A wide logo drawn by the browser itself (a word mark on a rounded badge), as PNG bytes. */
async function drawLogo(): Promise<Buffer> {
  const page = await h.newPage({ javaScript: true });
  // Run in the page (the test's TypeScript has no DOM types): a canvas, drawn and read back as PNG.
  const dataUrl = await page.evaluate<string>(`(() => {
    const canvas = document.createElement('canvas');
    canvas.width = 520;
    canvas.height = 128;
    const g = canvas.getContext('2d');
    g.fillStyle = '#1f6f5c';
    g.beginPath();
    g.roundRect(0, 0, 128, 128, 28);
    g.fill();
    g.fillStyle = '#ffffff';
    g.font = 'bold 72px sans-serif';
    g.fillText('G', 38, 90);
    g.fillStyle = '#7a8a84';
    g.font = 'bold 52px sans-serif';
    g.fillText('Garden Club', 148, 82, 364);
    return canvas.toDataURL('image/png');
  })()`);
  await page.context().close();
  return Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ''), 'base64');
}

/** The header's logo has been fetched (or has failed to be). */
const LOGO_DONE = "document.querySelector('.brand img')?.complete === true";

/** The logo's address is under PUBLIC_URL (another host): the browser is sent to this test's server for it. */
async function servedHere(page: Page) {
  const publicUrl = h.app.config.publicUrl;
  await page.route(`${publicUrl}/api/v2/logo/*`, (route) => route.continue({ url: route.request().url().replace(publicUrl, h.baseUrl) }));
}

describe('organisation brand in the browser', { skip }, () => {
  test('the logo and name on the sign-up form: loaded, bounded, named; screenshots; axe clean', async () => {
    const logo = await drawLogo();
    assert.equal(
      (await h.app.inject({ method: 'PATCH', url: '/api/v2/settings', headers, payload: { organisation_name: 'Garden Club' } })).statusCode,
      200,
    );
    const put = await h.app.inject({
      method: 'PUT',
      url: '/api/v2/settings/logo',
      headers: { ...headers, 'content-type': 'image/png' },
      payload: logo,
    });
    assert.equal(put.statusCode, 200, put.body);
    const f = await signupFixture(h.app.db, { accent_color: '#1f6f5c' });

    const page = await h.newPage({ javaScript: true });
    await servedHere(page);
    await page.goto(`/subscribe/${f.page.id}`);
    const img = page.getByRole('img', { name: 'Garden Club' });
    await img.waitFor();
    await page.waitForFunction(LOGO_DONE);
    const size = await img.evaluate((el) => {
      const image = el as unknown as { naturalWidth: number; clientWidth: number; clientHeight: number };
      return { natural: image.naturalWidth, width: image.clientWidth, height: image.clientHeight };
    });
    assert.equal(size.natural, 520, 'the logo loaded');
    assert.ok(size.height <= 64 && size.width <= 256, `bounded: ${JSON.stringify(size)}`);
    assert.equal(await page.title(), `${f.page.title} · Garden Club`);

    await h.screenshots('brand-signup', async (p) => {
      await servedHere(p);
      await p.goto(`/subscribe/${f.page.id}`);
      await p.waitForFunction(LOGO_DONE);
    });
    await h.screenshots('brand-not-found', async (p) => {
      await servedHere(p);
      await p.goto('/subscribe/999999');
    });
  });
});
