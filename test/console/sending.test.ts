import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { eq, inArray } from 'drizzle-orm';
import { campaignDomainSnapshots, campaignSendStates, subscribers } from '../../src/db/schema/index.js';
import { startWorker, type SendWorker } from '../../src/sending/worker.js';
import { createBounce, createCampaign } from '../factories.js';
import { freezeAudiences, listWithMembers, mailsOf } from '../sending/send-fixtures.js';
import { finishIfDone } from '../../src/sending/campaign-run.js';
import { compileCampaign } from '../../src/sending/compose/index.js';
import { Semaphore } from '../../src/sending/semaphore.js';
import { runBatch, type BatchEnv } from '../../src/sending/worker-batch.js';
import { relayState } from '../../src/sending/relay-state.js';
import { browserSkip, openSignedIn, screenshots, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

/*
 * Sending a campaign from the console against the real service, a real sender loop in this process and a real SMTP
 * sink: the confirmation names the audience, the progress view follows the send live (paused and resumed midway),
 * and the report's figures and chart move once a received mail's tracked link and open pixel are fetched.
 */

const RECIPIENTS = 300;
/** Recipients whose html_email is false. */
const TEXT_ONLY = 12;
/** Mails per second for the whole send: slow enough to pause and resume it while it goes. */
const RATE = 20;
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

describe('console: sending a campaign, its deliveries and report', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  let headers: Record<string, string>;
  let worker: SendWorker | undefined;
  let campaignId: number;
  before(async () => {
    ({ harness: h, session, headers } = await startConsoleSignedIn());
    const { list, members } = await listWithMembers(h.app.db, RECIPIENTS, { prefix: 'console-send', domain: 'example.org' });
    // The last twelve have asked for plain text: the confirmation says how many get the text version only.
    await h.app.db
      .update(subscribers)
      .set({ htmlEmail: false })
      .where(
        inArray(
          subscribers.id,
          members.slice(-TEXT_ONLY).map((m) => m.id),
        ),
      );
    // The campaign is written through the API, as a person (or the editor) would.
    const created = await h.app.inject({
      method: 'POST',
      url: '/api/v2/campaigns',
      headers,
      payload: {
        content: {
          subject: 'Autumn offers',
          text: '<p>Hello [EMAIL], see <a href="https://shop.example.com/autumn">the autumn offers</a>.</p>',
        },
        format: { send_format: 'html' },
        options: { from_field: 'Shop <news@example.com>' },
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    campaignId = (created.json() as { id: number }).id;
    const linked = await h.app.inject({ method: 'POST', url: `/api/v2/list-messages/message/${campaignId}/list/${list.id}`, headers });
    assert.equal(linked.statusCode, 201, linked.body);
  });
  after(async () => {
    await worker?.stop();
    await h?.close();
  });

  const figure = (page: Page, label: string) =>
    page
      .getByTestId('figures')
      .locator('.figure', { has: page.getByText(label, { exact: true }) })
      .locator('dd');
  const count = async (page: Page, label: string) => Number((await figure(page, label).innerText()).replace(/,/g, ''));
  const reportFigure = (page: Page, label: string) =>
    page
      .getByTestId('report-figures')
      .locator('.stat', { has: page.getByText(label, { exact: true }) })
      .locator('.stat-value');

  test('the confirmation names the audience; sending shows live progress, pauses, resumes and reaches sent', async () => {
    await screenshots(h, session, 'campaign-send-confirm', `/admin/campaigns/${campaignId}/send`, (p) => p.getByTestId('audience').waitFor());
    const page = await openSignedIn(h, session, `/admin/campaigns/${campaignId}/send`);
    await page.getByTestId('audience').getByText(`${RECIPIENTS}`, { exact: true }).waitFor();
    assert.match(await page.getByTestId('audience').innerText(), /to 300 recipients on 1 list, starting now\./);
    assert.equal(
      await page.getByTestId('text-only').innerText(),
      '12 of them get the text version only: they are set to plain-text mail (“Prefers HTML mail” on a subscriber’s page changes it).',
    );

    worker = startWorker(h.app.ctx, { rate: RATE, pollMs: 100, batchSize: 20, turnMs: 1000 });
    await page.getByRole('button', { name: `Send to ${RECIPIENTS} recipients` }).click();
    await page.getByTestId('send-status').filter({ hasText: 'Sending' }).waitFor({ timeout: 30_000 });
    // Figures move without a reload.
    await figure(page, 'Sent').filter({ hasNotText: /^0$/ }).waitFor({ timeout: 30_000 });
    const early = await count(page, 'Sent');
    assert.ok(early > 0 && early < RECIPIENTS, `some sent, not all: ${early}`);

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByTestId('send-status').filter({ hasText: 'Paused' }).waitFor();
    await page.getByText('Paused: no further mail goes out until you resume.').waitFor();
    const status = await h.app.inject({ method: 'GET', url: `/api/v2/campaigns/${campaignId}`, headers });
    assert.equal(status.json().message_metadata.status, 'suspended');
    // Batches already handed out finish; after that nothing more goes out while paused.
    await page
      .getByTestId('eta')
      .filter({ hasText: /^paused$/ })
      .waitFor();
    await figure(page, 'Sending').filter({ hasText: /^0$/ }).waitFor({ timeout: 20_000 });
    const paused = await count(page, 'Sent');
    assert.ok(paused < RECIPIENTS, `paused before the end: ${paused}`);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(mailsOf(h.app.smtp, campaignId).length, paused, 'nothing is sent while paused');
    await screenshots(h, session, 'campaign-send-paused', `/admin/campaigns/${campaignId}/send`, (p) =>
      p.getByTestId('send-status').filter({ hasText: 'Paused' }).waitFor(),
    );

    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('Resumed: sending goes on.').waitFor();
    await page
      .getByTestId('send-status')
      .filter({ hasText: /^Sent$/ })
      .waitFor({ timeout: 60_000 });
    assert.equal(await count(page, 'Sent'), RECIPIENTS);
    assert.equal(await count(page, 'Queued'), 0);
    assert.equal(await count(page, 'Failed'), 0);
    assert.equal(await page.getByTestId('eta').innerText(), 'none');
    assert.equal(await page.getByRole('progressbar').getAttribute('aria-valuenow'), '100');
    assert.equal(mailsOf(h.app.smtp, campaignId).length, RECIPIENTS);
    assert.equal(await page.getByRole('button', { name: 'Pause' }).count(), 0);
    // The page says it is over: the heading too, and the badge is green.
    await page.getByRole('heading', { name: 'Sent: Autumn offers' }).waitFor();
    assert.match((await page.getByTestId('send-status').getAttribute('class')) ?? '', /\bgood\b/);
    const textOnly = mailsOf(h.app.smtp, campaignId).filter((m) => !m.parsed.html);
    assert.equal(textOnly.length, TEXT_ONLY, 'the twelve got the text part only');
    await screenshots(h, session, 'campaign-send-done', `/admin/campaigns/${campaignId}/send`, (p) =>
      p
        .getByTestId('send-status')
        .filter({ hasText: /^Sent$/ })
        .waitFor(),
    );
  });

  test('deliveries: one row per recipient, filtered by status, paged by cursor', async () => {
    const page = await openSignedIn(h, session, `/admin/campaigns/${campaignId}/deliveries`);
    await page.getByText(`50 shown of ${RECIPIENTS}`).waitFor();
    const first = page.getByRole('row', { name: /console-send-0@example\.org/ });
    assert.match((await first.innerText()).replace(/\s+/g, ' '), /console-send-0@example\.org sent 1 250/);
    await page.getByRole('link', { name: 'Next page →' }).click();
    await page.getByRole('row', { name: /console-send-50@example\.org/ }).waitFor();
    await page.getByLabel('Status').selectOption('failed');
    await page.getByText('No failed deliveries').waitFor();
    assert.doesNotMatch(page.url(), /after=/);
    await page.getByLabel('Status').selectOption('sent');
    await page.getByText(`50 shown of ${RECIPIENTS}`).waitFor();
    assert.match(page.url(), /status=sent/);
    await screenshots(h, session, 'campaign-deliveries', `/admin/campaigns/${campaignId}/deliveries`, (p) =>
      p.getByText(`50 shown of ${RECIPIENTS}`).waitFor(),
    );
  });

  test("the report's figures and chart change when a received mail's link and open pixel are fetched", async () => {
    const page = await openSignedIn(h, session, `/admin/campaigns/${campaignId}/report`);
    await reportFigure(page, 'Sent')
      .filter({ hasText: String(RECIPIENTS) })
      .waitFor();
    assert.equal(await reportFigure(page, 'Unique opens').innerText(), '0');
    assert.equal(await reportFigure(page, 'Unique clicks').innerText(), '0');
    await page.getByText('No opens or clicks yet.').waitFor();
    await page.getByText('No mail of this campaign has bounced.').waitFor();
    // The recipient domains: none counted on the first visit; the box asks again until the snapshot arrives.
    const domains = page.getByRole('region', { name: 'Recipient domains' });
    const domainRow = domains.getByRole('row', { name: /^example\.org/ });
    const rowText = async () => (await domainRow.innerText()).replace(/\s+/g, ' ').trim();
    await domainRow.waitFor();
    assert.equal(await rowText(), 'example.org 300 300 0 0.0% 0 0.0% 0 0.0%');
    assert.match(await page.getByTestId('domains-as-of').innerText(), /^As of /);

    // One recipient's mail, as received: its tracked link and its open pixel.
    const mail = mailsOf(h.app.smtp, campaignId).find((m) => m.envelope.to.includes('console-send-7@example.org'));
    assert.ok(mail, 'the sink received the mail of console-send-7');
    const html = String(mail.parsed.html);
    const tracked = /href="([^"]*\/lt\/[^"]+)"/.exec(html)?.[1];
    const pixel = /src="([^"]*\/t\/open\.gif\?[^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
    assert.ok(tracked && pixel, 'the mail carries a tracked link and an open pixel');
    const local = (url: string) => new URL(url).pathname + new URL(url).search;
    const opened = await h.app.inject({ method: 'GET', url: local(pixel), headers: { 'user-agent': BROWSER } });
    assert.equal(opened.statusCode, 200);
    const clicked = await h.app.inject({ method: 'GET', url: local(tracked), headers: { 'user-agent': BROWSER } });
    assert.equal(clicked.statusCode, 302);
    assert.equal(clicked.headers.location, 'https://shop.example.com/autumn');
    await h.app.ctx.events.flush();

    await page.getByRole('button', { name: 'Refresh' }).click();
    await reportFigure(page, 'Unique opens').filter({ hasText: /^1$/ }).waitFor();
    assert.equal(await reportFigure(page, 'Unique clicks').innerText(), '1');
    assert.equal(await reportFigure(page, 'Clicks').innerText(), '1');
    await page.locator('.chart canvas').first().waitFor();
    assert.match((await page.getByRole('img', { name: /Opens and clicks per hour/ }).getAttribute('aria-label')) ?? '', /1 opens, 1 clicks/);
    const link = page.getByRole('row', { name: /shop\.example\.com\/autumn/ });
    assert.equal((await link.innerText()).replace(/\s+/g, ' ').trim(), 'https://shop.example.com/autumn 1 1');

    // A bounce matched to one recipient's delivery, as bounce processing stores it: listed with its subscriber.
    const [bounced] = await h.app.db.select().from(subscribers).where(eq(subscribers.email, 'console-send-9@example.org'));
    await createBounce(h.app.db, {
      campaignId,
      subscriberId: bounced!.id,
      status: 'bounced list message',
      comment: 'Hard bounce: 550 5.1.1 unknown user',
    });
    // The domain snapshot ages past its 10 minutes: the next visit shows it, refreshes it, and shows the new one.
    await h.app.db
      .update(campaignDomainSnapshots)
      .set({ computedAt: new Date(Date.now() - 11 * 60_000) })
      .where(eq(campaignDomainSnapshots.campaignId, campaignId));
    await page.reload();
    await domains.getByRole('row', { name: /^example\.org 300 300 1 0\.3% 1 0\.3% 1 0\.3%$/ }).waitFor();
    const bounces = page.getByRole('region', { name: 'Bounces of this campaign' });
    await bounces.waitFor();
    const row = bounces.getByRole('row', { name: /console-send-9@example\.org/ });
    assert.match(
      (await row.innerText()).replace(/\s+/g, ' '),
      /console-send-9@example\.org \(bounces\) bounced list message Hard bounce: 550 5\.1\.1 unknown user/,
    );
    assert.equal(
      await row.getByRole('link', { name: 'console-send-9@example.org', exact: true }).getAttribute('href'),
      `/admin/subscribers/${bounced!.id}`,
    );
    assert.equal(
      await row.getByRole('link', { name: 'All bounces of console-send-9@example.org' }).getAttribute('href'),
      `/admin/bounces?subscriber=${bounced!.id}`,
    );
    assert.equal(await bounces.page().getByText('1 shown of 1').count(), 1);
    // The sentence above the list agrees with it, whether or not the campaign's counter has been folded in yet.
    assert.equal(await page.getByText('1 mail bounced (0.3% of those sent).', { exact: true }).count(), 1);
    assert.equal(await page.getByText('No mail of this campaign has bounced.').count(), 0);
    await screenshots(h, session, 'campaign-report', `/admin/campaigns/${campaignId}/report`, (p) => p.locator('.chart canvas').first().waitFor());
  });

  test('dashboard: mails sent per day and opens and clicks per day over the last 30 days', async () => {
    const page = await openSignedIn(h, session, '/admin/');
    const sends = page.getByRole('img', { name: /Campaign mails sent and failed per day/ });
    await sends.waitFor();
    assert.match((await sends.getAttribute('aria-label')) ?? '', /: 300 sent$/);
    await sends.locator('canvas').waitFor();
    await page.getByRole('img', { name: 'Opens and clicks per day over the last 30 days' }).locator('canvas').waitFor();
    await screenshots(h, session, 'dashboard-activity', '/admin/', (p) => p.locator('.chart canvas').nth(2).waitFor());
  });

  test('analytics: campaign performance, domains and local parts as tables with charts', async () => {
    const page = await openSignedIn(h, session, '/admin/analytics');
    const row = page.getByRole('region', { name: 'Campaign performance table' }).getByRole('row', { name: /Autumn offers/ });
    await row.waitFor();
    assert.match((await row.innerText()).replace(/\s+/g, ' '), /Autumn offers .* 300 1 0\.3% /);
    await page
      .getByRole('region', { name: 'Top domains table' })
      .getByRole('row', { name: /example\.org 300/ })
      .waitFor();
    // The local parts are a snapshot (issue 24): the section says when it was taken.
    await page
      .getByTestId('local-parts-as-of')
      .filter({ hasText: /^As of \d{1,2} \w{3} \d{4}, \d{2}:\d{2}$/ })
      .waitFor();
    // The charts draw once their lazily loaded module arrives: wait for the fourth before counting.
    await page.locator('.chart canvas').nth(3).waitFor();
    assert.equal(await page.locator('.chart canvas').count(), 4);
    await row.getByRole('link', { name: 'Autumn offers' }).click();
    await page.getByRole('heading', { name: 'Report: Autumn offers' }).waitFor();
    await screenshots(h, session, 'analytics', '/admin/analytics', (p) =>
      p
        .getByRole('region', { name: 'Top domains table' })
        .waitFor()
        .then(() => p.locator('.chart canvas').nth(3).waitFor()),
    );
  });

  test('a send that partly failed offers to retry the failures, and the retry sends them', async () => {
    const { list } = await listWithMembers(h.app.db, 3, { prefix: 'console-retry', domain: 'example.net' });
    const created = await h.app.inject({
      method: 'POST',
      url: '/api/v2/campaigns',
      headers,
      payload: {
        content: { subject: 'Second try', text: '<p>Hello</p>' },
        format: { send_format: 'html' },
        options: { from_field: 'news@example.com' },
      },
    });
    const id = (created.json() as { id: number }).id;
    await h.app.inject({ method: 'POST', url: `/api/v2/list-messages/message/${id}/list/${list.id}`, headers });
    h.app.smtp.failNext(2, 550, 'No such user here');
    const page = await openSignedIn(h, session, `/admin/campaigns/${id}/send`);
    await page.getByRole('button', { name: 'Send to 3 recipients' }).click();
    await page.getByTestId('send-status').filter({ hasText: 'Sent: partially failed' }).waitFor({ timeout: 60_000 });
    assert.equal(await count(page, 'Failed'), 2);
    assert.equal(await count(page, 'Sent'), 1);
    await page.getByText(/Latest failure: 550/).waitFor();
    await screenshots(h, session, 'campaign-send-failed', `/admin/campaigns/${id}/send`, (p) =>
      p.getByRole('button', { name: 'Retry 2 failed' }).waitFor(),
    );

    await page.getByRole('button', { name: 'Retry 2 failed' }).click();
    await page.getByText('2 failed deliveries queued again.').waitFor();
    await page
      .getByTestId('send-status')
      .filter({ hasText: /^Sent$/ })
      .waitFor({ timeout: 60_000 });
    assert.equal(await count(page, 'Sent'), 3);
    assert.equal(await count(page, 'Failed'), 0);
    assert.equal(mailsOf(h.app.smtp, id).length, 3);
  });
  test('a relay that cannot be used: the send page says so, and that sending resumes by itself', async () => {
    // No sender running: the state is the one relay-state.ts writes while the relay is down.
    await worker?.stop();
    worker = undefined;
    const campaign = await createCampaign(h.app.db, { status: 'inprocess', subject: 'Waiting for the relay' });
    const retryAt = new Date(Date.now() + 60_000);
    await h.app.db.insert(campaignSendStates).values({
      campaignId: campaign.id,
      relayError: 'Could not connect to 127.0.0.1:2525: connect ECONNREFUSED 127.0.0.1:2525',
      relayDownSince: new Date(),
      relayRetryAt: retryAt,
    });
    const page = await openSignedIn(h, session, `/admin/campaigns/${campaign.id}/send`);
    await page.getByTestId('send-status').filter({ hasText: 'Waiting for the mail server' }).waitFor();
    const notice = await page.getByTestId('relay-unavailable').innerText();
    assert.match(notice, /^The mail server cannot be used: Could not connect to 127\.0\.0\.1:2525: connect ECONNREFUSED 127\.0\.0\.1:2525\. /);
    assert.match(notice, /resumes by itself when the server answers; next try at .+\.$/);
    // The relay answers: the state is cleared and the page goes back to "Sending" on its next poll.
    await h.app.db
      .update(campaignSendStates)
      .set({ relayError: null, relayDownSince: null, relayRetryAt: null })
      .where(eq(campaignSendStates.campaignId, campaign.id));
    await page
      .getByTestId('send-status')
      .filter({ hasText: /^Sending$/ })
      .waitFor({ timeout: 15_000 });
    assert.equal(await page.getByTestId('relay-unavailable').count(), 0);
  });

  test('a send watched to its end shows it finished, also when the campaign is read after the sender marks it sent and its figures before', async () => {
    // Issue 25: 598 of 598 sent with 0 failures, and the page stayed on a red "Sent: in progress" under "Sending:".
    // The page reads the campaign and its figures side by side; here the sender marks the campaign sent between the
    // two reads of one poll (the figures first), the order that showed it. The sending is the worker's own steps
    // (freeze, batches into the SMTP sink, then its check that the campaign is done), taken one at a time.
    await worker?.stop();
    worker = undefined;
    const { list } = await listWithMembers(h.app.db, 5, { prefix: 'console-race', domain: 'example.net' });
    const created = await h.app.inject({
      method: 'POST',
      url: '/api/v2/campaigns',
      headers,
      payload: {
        content: { subject: 'To the end', text: '<p>Hello</p>' },
        format: { send_format: 'html' },
        options: { from_field: 'news@example.com' },
      },
    });
    const id = (created.json() as { id: number }).id;
    await h.app.inject({ method: 'POST', url: `/api/v2/list-messages/message/${id}/list/${list.id}`, headers });

    const page = await openSignedIn(h, session, `/admin/campaigns/${id}/send`);
    let armed = false;
    let finishedHere = false;
    let release = () => {};
    const figuresRead = new Promise<void>((resolve) => (release = resolve));
    await page.route(`**/api/v2/campaigns/${id}/stats`, async (route) => {
      const response = await route.fetch();
      if (armed && !finishedHere) {
        const body = (await response.json()) as { outcome: { result: string }; deliveries: { queued: number; sending: number } };
        if (body.outcome.result === 'in progress' && body.deliveries.queued + body.deliveries.sending === 0) {
          assert.equal(await finishIfDone(h.app.ctx, id), 'sent');
          finishedHere = true;
          release();
        }
      }
      await route.fulfill({ response });
    });
    await page.route(`**/api/v2/campaigns/${id}`, async (route) => {
      if (armed && !finishedHere) await figuresRead;
      await route.continue();
    });

    await page.getByRole('button', { name: 'Send to 5 recipients' }).click();
    await page.getByTestId('send-status').filter({ hasText: 'Waiting to start' }).waitFor();
    await freezeAudiences(h.app.ctx);
    const env: BatchEnv = {
      ctx: h.app.ctx,
      workerId: 'console-race',
      settings: h.app.config.sending,
      relay: relayState(h.app.ctx, h.app.config.sending),
      slots: new Semaphore(8),
      isStopping: () => false,
      compiled: (campaign) => compileCampaign(h.app.ctx, campaign),
      failureRuns: new Map(),
    };
    while ((await runBatch(env, id)).claimed > 0);
    assert.equal(mailsOf(h.app.smtp, id).length, 5);
    armed = true;

    await page
      .getByTestId('send-status')
      .filter({ hasText: /^Sent$/ })
      .waitFor({ timeout: 20_000 });
    assert.ok(finishedHere, 'the campaign was marked sent between the two reads of a poll');
    await page.getByRole('heading', { name: 'Sent: To the end' }).waitFor();
    assert.match((await page.getByTestId('send-status').getAttribute('class')) ?? '', /\bgood\b/);
    assert.equal(await count(page, 'Sent'), 5);
    assert.equal(await count(page, 'Failed'), 0);
    assert.equal(await page.getByTestId('eta').innerText(), 'none');
    assert.equal(await page.getByRole('button', { name: 'Pause' }).count(), 0);
    await page.getByText('Finished', { exact: true }).waitFor();
    await screenshots(h, session, 'campaign-send-finished', `/admin/campaigns/${id}/send`, (p) =>
      p.getByRole('heading', { name: 'Sent: To the end' }).waitFor(),
    );
  });
});
