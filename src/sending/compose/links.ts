import { linkMark } from './placeholders.js';

/*
 * Click tracking at compile time: each distinct http(s) link of a campaign is collected once and its places in the
 * bodies are marked; compile.ts stores the URLs in `links` and the renderer writes `PUBLIC_URL/lt/<token>` there.
 * Links that are personalised (carry a placeholder), not web links (mailto:, #anchors), or the service's own
 * subscriber pages (unsubscribe, preferences, confirmation, forward) are left as written.
 */

/** The distinct URLs of a campaign, in the order first seen. */
export class TrackedUrls {
  readonly urls: string[] = [];
  private readonly index = new Map<string, number>();

  add(url: string): number {
    let i = this.index.get(url);
    if (i === undefined) {
      i = this.urls.length;
      this.urls.push(url);
      this.index.set(url, i);
    }
    return i;
  }
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** The entities an href is likely to hold (`&amp;` above all), decoded. */
export function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Paths of the service's own pages in mail: never rewritten, whatever the body links to. */
const OWN_PATHS = [
  '/api/v2/unsubscribe',
  '/preferences/',
  '/forward/',
  '/unsubscribe/',
  '/api/v2/subscribers/',
  '/api/v2/email-forward',
  '/api/v2/t/',
  '/lt/',
  '/api/v2/link-track',
];

export function trackable(url: string, publicUrl: string): boolean {
  if (!/^https?:\/\/[^\s/?#]+/i.test(url)) return false;
  if (/[[\]\uE000\uE001]/.test(url)) return false;
  if (url.toLowerCase().startsWith(publicUrl.toLowerCase())) {
    const path = url.slice(publicUrl.length);
    if (OWN_PATHS.some((own) => path.startsWith(own))) return false;
  }
  return true;
}

const ANCHOR_TAG = /<(?:a|area)\s[^>]*>/gi;
const HREF = /(\shref\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i;

/** Rewrites the href of every trackable `<a>`/`<area>` to `PUBLIC_URL/lt/` and a mark naming its URL. */
export function trackHtmlLinks(html: string, publicUrl: string, urls: TrackedUrls): string {
  return html.replace(ANCHOR_TAG, (tag) =>
    tag.replace(HREF, (whole, prefix: string, double?: string, single?: string, bare?: string) => {
      const url = decodeEntities((double ?? single ?? bare ?? '').trim());
      if (!trackable(url, publicUrl)) return whole;
      return `${prefix}"${publicUrl}/lt/${linkMark(urls.add(url))}"`;
    }),
  );
}

/** A URL in running text; a closing bracket or punctuation right after it is not part of it. */
const TEXT_URL = /https?:\/\/[^\s<>"'[\]\uE000\uE001]+/gi;

/** Rewrites every trackable URL written in a text body. */
export function trackTextLinks(text: string, publicUrl: string, urls: TrackedUrls): string {
  return text.replace(TEXT_URL, (found: string, offset: number) => {
    const url = found.replace(/[.,;:!?)'"]+$/, '');
    const rest = found.slice(url.length);
    // Followed by a placeholder: a personalised URL (`https://x.example/?id=[USERID]`), left alone.
    const next = text[offset + found.length];
    if (rest === '' && (next === '[' || next === '\uE000')) return found;
    if (!trackable(url, publicUrl)) return found;
    return `${publicUrl}/lt/${linkMark(urls.add(url))}${rest}`;
  });
}
