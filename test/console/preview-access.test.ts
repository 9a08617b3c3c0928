import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { templates } from '../../src/db/schema/index.js';
import { createCampaign } from '../factories.js';
import { browserSkip, framesLoaded, openSignedIn, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

/*
 * Issue 23 in the console's campaign preview: an administrator without `subscribers` is offered the sample preview
 * only (the API refuses a real subscriber's), and the preview's Content-Security-Policy goes into the head the HTML
 * parser makes, not after the first `<head` text found (one inside a comment left the document without a policy).
 */
describe('console: campaign preview for a campaigns-only administrator', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  before(async () => {
    ({ harness: h, session } = await startConsoleSignedIn({ superUser: false, privileges: { campaigns: true } }));
  });
  after(async () => h?.close());

  test('no subscriber field, a sample preview; `<!-- <head> -->` before the real head still gets the policy, nothing is fetched', async () => {
    const [template] = await h.app.db
      .insert(templates)
      .values({
        title: `Commented head ${Date.now()}`,
        content: '<!-- <head> -->\n<html><head><title>Frame</title></head><body><div class="frame">[CONTENT]</div></body></html>',
      })
      .returning();
    const campaign = await createCampaign(h.app.db, {
      subject: 'Hello [EMAIL]',
      body: `<p>Hi [EMAIL], <a href="[PREFERENCESURL]">your preferences</a></p><p><img src="${h.baseUrl}/preview-probe.png" alt="Probe"></p>`,
      textBody: 'Hi [EMAIL] [PREFERENCESURL]',
      fromField: 'News <news@example.com>',
      templateId: template!.id,
    });

    const page = await openSignedIn(h, session, `/admin/campaigns/${campaign.id}`);
    const probes: string[] = [];
    page.on('response', (response) => {
      if (response.url().includes('preview-probe')) probes.push(`${response.status()} ${response.url()}`);
    });
    page.on('requestfailed', (request) => {
      const reason = request.failure()?.errorText ?? '';
      if (request.url().includes('preview-probe') && reason !== 'csp') probes.push(`${reason} ${request.url()}`);
    });
    const preview = page.getByTestId('preview');
    await preview.getByRole('button', { name: 'Preview with sample values' }).waitFor();
    assert.equal(await preview.getByLabel(/Preview for subscriber/).count(), 0, 'no field for a real subscriber');
    await preview.getByText('Previewing for a real subscriber needs the subscribers privilege.').waitFor();
    await preview.getByRole('button', { name: 'Preview with sample values' }).click();
    await preview.getByTestId('preview-subject').filter({ hasText: 'Hello sample.subscriber@example.com' }).waitFor();
    assert.equal(await preview.getByTestId('preview-text').innerText(), 'Hi sample.subscriber@example.com https://sample.invalid/preferences');
    await preview.getByText('A sample subscriber (sample values, links that do not work)').waitFor();

    const frame = preview.locator('iframe[srcdoc*="preview-probe"]');
    await frame.waitFor();
    const srcdoc = (await frame.getAttribute('srcdoc')) ?? '';
    // Where a parser puts it: the first element of the real head, the commented one left as it was.
    const first = await page.evaluate((html) => {
      // In the page: the browser's own parser (no DOM types in the tests' TypeScript).
      type Parsed = { head: { firstElementChild: { outerHTML: string } | null } };
      const Parser = (globalThis as unknown as { DOMParser: new () => { parseFromString(text: string, type: string): Parsed } }).DOMParser;
      return new Parser().parseFromString(html, 'text/html').head.firstElementChild?.outerHTML ?? '';
    }, srcdoc);
    assert.equal(
      first,
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'">`,
    );
    assert.ok(srcdoc.includes('<!-- <head> -->'), srcdoc);
    await page.frameLocator('[data-testid=preview] iframe').getByRole('img', { name: 'Probe' }).waitFor({ state: 'attached' });
    await page.frameLocator('[data-testid=preview] iframe').getByText('Hi sample.subscriber@example.com').waitFor();
    assert.ok((await framesLoaded(page, 'iframe[srcdoc*="preview-probe"]')) >= 1);
    assert.deepEqual(probes, [], 'the preview requested an image from the service');
  });
});
