import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CONSOLE_DIR } from '../../src/plugins/console.js';
import type { Config } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helper.js';

/*
 * Browser tests of the admin console: playwright-core drives Debian's Chromium (no browser download) against the
 * real service, started on this file's own fresh database and listening on a loopback port, serving the built
 * console (test/prepare.ts builds it). They run inside node's test runner like every other test.
 */

// CHROMIUM_PATH, when set, is the only browser tried.
const CANDIDATES = process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
export const CHROMIUM = CANDIDATES.find((path) => existsSync(path)) ?? null;

const HOW_TO = 'Install it with `apt-get update && apt-get install -y chromium` (or set CHROMIUM_PATH).';

/** Which browser tests a run takes: BROWSER_TESTS=off none, =console or =public that set only, unset both. */
export type BrowserSet = 'console' | 'public';

/**
 * `skip` for node:test: the reason when no Chromium is found (said loudly on stderr), false otherwise. With
 * REQUIRE_BROWSER=1 (set by .ci/run) a missing browser is an error instead, so CI cannot pass without these tests.
 */
export function browserSkip(set: BrowserSet = 'console'): string | false {
  // .ci/run takes the console's flows in its PGlite pass and the public pages' in its PostgreSQL pass: they test the
  // pages, over the same API whose HTTP tests run on both databases, and every flow twice took CI past 20 minutes.
  const only = process.env.BROWSER_TESTS;
  if (only === 'off' || (only && only !== set)) return `BROWSER_TESTS=${only} (this pass leaves the ${set} pages' browser tests to the other)`;
  if (CHROMIUM) return false;
  const message = `\n*** NO CHROMIUM: the admin console's browser tests are SKIPPED. ${HOW_TO} ***\n`;
  if (process.env.REQUIRE_BROWSER === '1') throw new Error(`REQUIRE_BROWSER=1 but no Chromium was found. ${HOW_TO}`);
  console.error(message);
  return `no Chromium found. ${HOW_TO}`;
}

/** The page's sessionStorage, typed here (the tests' tsconfig has no DOM library). */
export interface BrowserStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** What sessionStorage holds under `key`, in the page. */
export function storedItem(page: Page, key: string): Promise<string | null> {
  return page.evaluate((k) => (globalThis as unknown as { sessionStorage: BrowserStorage }).sessionStorage.getItem(k), key);
}

/** In the checkout (the tests run from it, and from the compiled copy in .cache/js/ under `npm test`). */
export const SCREENSHOTS = join(process.cwd(), 'test-results', 'screenshots');

/** A phone's screen (an iPhone 12–15's CSS pixels). */
export const PHONE_VIEWPORT = { width: 390, height: 844 };

export interface ConsoleHarness {
  app: TestApp;
  baseUrl: string;
  browser: Browser;
  /** A new browser context (empty sessionStorage) and page; closed by close(). */
  newPage(options?: { colorScheme?: 'light' | 'dark'; phone?: boolean }): Promise<Page>;
  close(): Promise<void>;
}

export async function startConsole(overrides: Partial<Config> = {}): Promise<ConsoleHarness> {
  assert.ok(existsSync(join(CONSOLE_DIR, 'index.html')), 'the console is not built: npx tsx test/prepare.ts builds it');
  const app = await startTestApp(overrides);
  const address = await app.app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await chromium.launch({
    executablePath: CHROMIUM!,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const contexts: BrowserContext[] = [];
  return {
    app,
    baseUrl: address,
    browser,
    async newPage(options = {}) {
      const context = await browser.newContext({
        baseURL: address,
        colorScheme: options.colorScheme ?? 'light',
        viewport: options.phone ? PHONE_VIEWPORT : { width: 1280, height: 860 },
        deviceScaleFactor: 1,
        isMobile: options.phone ?? false,
        hasTouch: options.phone ?? false,
      });
      context.setDefaultTimeout(10_000);
      contexts.push(context);
      return context.newPage();
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
      await app.close();
    },
  };
}

export async function signIn(page: Page, login: string, password: string, path = '/admin/'): Promise<void> {
  await page.goto(path);
  await page.getByLabel('Login name').fill(login);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/**
 * The console with one administrator (`admin`, as TestApp.adminWithSession takes it) signed in: the harness, the
 * session to open pages with (openSignedIn), the API headers of the same session and the administrator.
 */
export async function startConsoleSignedIn(admin: Parameters<TestApp['adminWithSession']>[0] = {}, overrides: Partial<Config> = {}) {
  const harness = await startConsole(overrides);
  const s = await harness.app.adminWithSession(admin);
  return { harness, session: { key: s.key, id: s.sessionId }, headers: s.headers, adminId: s.admin.id };
}

/** A page already signed in with `session` (its key put in sessionStorage before the console loads). */
export async function openSignedIn(
  harness: ConsoleHarness,
  session: { key: string; id: number },
  path: string,
  options: { colorScheme?: 'light' | 'dark'; phone?: boolean } = {},
): Promise<Page> {
  const page = await harness.newPage(options);
  if (session.key)
    await page.addInitScript(
      ([key, id]) => {
        const storage = (globalThis as unknown as { sessionStorage: BrowserStorage }).sessionStorage;
        storage.setItem('mailroom.session', key!);
        storage.setItem('mailroom.session-id', id!);
      },
      [session.key, String(session.id)],
    );
  await page.goto(path);
  return page;
}

/** What a violation of axe-core's answer is made of, as far as the assertion reads it. */
interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * No serious or critical axe-core violation on the page as it is now.
 *
 * axe-core is put into the page once per document and run there directly. @axe-core/playwright's analyze() evaluated
 * its 580 KB source twice on every check (once to probe, once more per frame) and configured it again: 1.5–1.6 s a
 * check against 0.25–0.5 s for the run itself, and the console's suite makes some 250 checks.
 *
 * A sandboxed frame (a campaign's preview) is left out: it runs no script, so axe-core cannot test inside it and would
 * wait for it in vain; its HTML is the campaign's, not the console's. Every frame the console shows is sandboxed.
 */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  if (!(await page.evaluate('typeof window.axe?.run === "function"'))) await page.evaluate(axe.source);
  const violations = await page.evaluate(async (): Promise<AxeViolation[]> => {
    const { axe } = globalThis as unknown as { axe: { run(context: unknown): Promise<{ violations: AxeViolation[] }> } };
    return (await axe.run({ exclude: [['iframe[sandbox=""]']] })).violations;
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join('; ')}`,
    ),
    [],
    `accessibility violations on ${what}`,
  );
}

/**
 * SCREENSHOTS=off skips the screenshot sets and their axe checks. They are of the pages, not of the database, so
 * .ci/run takes them in its embedded-database pass only: its PostgreSQL pass would write the same pictures again.
 */
export const screenshotsOff = () => process.env.SCREENSHOTS === 'off';

/**
 * SCREENSHOTS=axe keeps the sets' axe checks and writes no pictures (a phone in light only, see screenshotSchemes):
 * .ci/run sets it, since nobody looks at the pictures of CI's clean clone, and they were minutes of its budget.
 */
export const picturesOff = () => process.env.SCREENSHOTS === 'axe';

/**
 * A set's axe checks without pictures (SCREENSHOTS=axe), on one page: desktop in light and dark, then the same page
 * narrowed to a phone's width, in light. The pages' layouts follow the width alone (media queries on width; none on
 * hover or pointer), and console/phone.test.ts checks every console view in a real phone's context; a second page
 * load for the phone, and its `ready`, were a quarter of each set's time.
 */
export async function checkBothWidths(page: Page, name: string): Promise<void> {
  await screenshotSchemes(page, (scheme) => `${name}-${scheme}-desktop`);
  await page.setViewportSize(PHONE_VIEWPORT);
  await screenshotSchemes(page, (scheme) => `${name}-${scheme}-phone`, true);
}

/**
 * Screenshots of the page at `path` in light and dark, desktop and phone, each with an axe check, written to
 * test-results/screenshots/ (git-ignored). `ready` waits for the view's content. The page is opened once per form
 * factor and switched from light to dark in place (the console follows a change of prefers-color-scheme live, charts
 * included: ui/Chart.tsx): half the page loads of opening each of the four anew, which CI's time needs.
 */
export async function screenshots(
  harness: ConsoleHarness,
  sessionKey: { key: string; id: number },
  name: string,
  path: string,
  ready: (page: Page) => Promise<unknown>,
): Promise<void> {
  if (screenshotsOff()) return;
  if (picturesOff()) {
    const page = await openSignedIn(harness, sessionKey, path);
    await ready(page);
    await checkBothWidths(page, name);
    await page.context().close();
    return;
  }
  for (const phone of [false, true]) {
    const page = await openSignedIn(harness, sessionKey, path, { phone });
    await ready(page);
    // `ready` runs once: it may act on the page (open a dialog), and the content stays through the switch.
    await screenshotSchemes(page, (scheme) => `${name}-${scheme}-${phone ? 'phone' : 'desktop'}`, phone);
    await page.context().close();
  }
}

/**
 * The page as it is, in light then in dark: a full-page screenshot to test-results/screenshots/<file(scheme)>.png
 * and an axe check of each.
 */
export async function screenshotSchemes(page: Page, file: (scheme: 'light' | 'dark') => string, phone = false): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Without pictures (CI), a phone is checked in light only: its dark colours are the desktop's, checked there, and
  // its layout is checked in light.
  const schemes = picturesOff() && phone ? (['light'] as const) : (['light', 'dark'] as const);
  for (const colorScheme of schemes) {
    await page.emulateMedia({ colorScheme });
    // Two frames: the restyle, then whatever the scheme change redrew (a chart's canvas).
    await page.evaluate(() => {
      const frame = (globalThis as unknown as { requestAnimationFrame(callback: () => void): number }).requestAnimationFrame;
      return new Promise<void>((done) => frame(() => frame(done)));
    });
    // With a modal dialog open the page behind it does not scroll: the picture is the screen the user sees (a full
    // page would show the page below the backdrop, which covers the viewport only).
    const fullPage = (await page.locator('dialog[open]').count()) === 0;
    if (!picturesOff()) await page.screenshot({ path: join(SCREENSHOTS, `${file(colorScheme)}.png`), fullPage });
    await assertAccessible(page, `${file(colorScheme)}`);
  }
}

/**
 * Waits until every frame matching `selector` has loaded: its document and every image it asked for (a document's
 * load waits for them), so a request the frame made has reached the service, or was refused, by then. Playwright's
 * `networkidle` is no such signal here: it never comes while a sandboxed `srcdoc` frame's refused request stays
 * counted as in flight, which a busy machine made happen.
 */
export async function framesLoaded(page: Page, selector: string): Promise<number> {
  const handles = await page.locator(selector).elementHandles();
  for (const handle of handles) {
    const frame = await handle.contentFrame();
    assert.ok(frame, `${selector}: a frame with a document`);
    await frame.waitForLoadState('load');
  }
  return handles.length;
}
