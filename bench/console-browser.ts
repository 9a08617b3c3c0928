import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/** Debian's Chromium (CHROMIUM_PATH to choose another) with a context signed in to the console at `base`. */
export async function signedInBrowser(base: string, sessionKey: string, sessionId: number): Promise<{ browser: Browser; context: BrowserContext }> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
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
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 860 } });
  await context.addInitScript(
    ([key, id]) => {
      const storage = (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }).sessionStorage;
      storage.setItem('mailroom.session', key!);
      storage.setItem('mailroom.session-id', id!);
    },
    [sessionKey, String(sessionId)],
  );
  return { browser, context };
}
