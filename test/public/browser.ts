import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Config } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helper.js';
import {
  browserSkip as consoleBrowserSkip,
  checkBothWidths,
  CHROMIUM,
  PHONE_VIEWPORT,
  picturesOff,
  screenshotSchemes,
  screenshotsOff,
} from '../console/browser.js';

/*
 * Browser tests of the public pages (sign-up, confirm, preferences, unsubscribe, forward): the console's set-up
 * (test/console/browser.ts: Debian's Chromium through playwright-core, axe-core, screenshots) without the console.
 * JavaScript is off unless a test needs it for axe-core: the public pages must work without it.
 */

export { assertAccessible } from '../console/browser.js';

/** The console's skip rule, for the public pages' set (BROWSER_TESTS=public runs only these). */
export const browserSkip = () => consoleBrowserSkip('public');

export interface PageOptions {
  colorScheme?: 'light' | 'dark';
  phone?: boolean;
  /** Sent as Accept-Language (and the browser's locale). */
  locale?: string;
  /**
   * JavaScript on (default off, to show the pages need none). axe-core runs in the page, so pages checked with
   * assertAccessible need it on; the pages themselves have no script to run either way (CSP script-src 'none').
   */
  javaScript?: boolean;
}

export interface PublicHarness {
  app: TestApp;
  baseUrl: string;
  browser: Browser;
  /** A new browser context and page (JavaScript off unless asked for); closed by close(). */
  newPage(options?: PageOptions): Promise<Page>;
  /**
   * Opens a page twice (desktop and phone) and shows it in light and dark, screenshots each to
   * test-results/screenshots/public-<name>-<scheme>-<width>.png and checks it with axe-core; without pictures
   * (SCREENSHOTS=axe) one page, narrowed for the phone (checkBothWidths). `open` brings the page to the state to show.
   */
  screenshots(name: string, open: (page: Page) => Promise<unknown>, options?: Pick<PageOptions, 'locale'>): Promise<void>;
  close(): Promise<void>;
}

export async function startPublic(overrides: Partial<Config> = {}): Promise<PublicHarness> {
  const app = await startTestApp(overrides);
  const baseUrl = await app.app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await chromium.launch({
    executablePath: CHROMIUM!,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const contexts: BrowserContext[] = [];
  const newPage = async (options: PageOptions = {}) => {
    const context = await browser.newContext({
      baseURL: baseUrl,
      javaScriptEnabled: options.javaScript ?? false,
      colorScheme: options.colorScheme ?? 'light',
      viewport: options.phone ? PHONE_VIEWPORT : { width: 1280, height: 860 },
      deviceScaleFactor: 1,
      isMobile: options.phone ?? false,
      hasTouch: options.phone ?? false,
      locale: options.locale ?? 'en-GB',
      extraHTTPHeaders: { 'accept-language': options.locale ?? 'en-GB,en;q=0.8' },
    });
    context.setDefaultTimeout(10_000);
    contexts.push(context);
    return context.newPage();
  };
  return {
    app,
    baseUrl,
    browser,
    newPage,
    async screenshots(name, open, options = {}) {
      if (screenshotsOff()) return;
      if (picturesOff()) {
        const page = await newPage({ ...options, javaScript: true });
        await open(page);
        await checkBothWidths(page, `public-${name}`);
        await page.context().close();
        return;
      }
      for (const phone of [false, true]) {
        const page = await newPage({ phone, ...options, javaScript: true });
        await open(page);
        await screenshotSchemes(page, (scheme) => `public-${name}-${scheme}-${phone ? 'phone' : 'desktop'}`, phone);
        await page.context().close();
      }
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
      await app.close();
    },
  };
}
