import { escapeHtml } from '../shared/html.js';
import type { Brand } from './brand.js';
import type { PublicPage } from './headers.js';
import { translator, type Lang } from '../shared/i18n.js';
import { accentVariables, logoUrl, safeCustomCss, type PageLook } from '../subscription/index.js';
import { common } from './messages/common.js';
import { STYLESHEET_PATH } from './stylesheet.js';

/*
 * The one shell of every public page: doctype, language, title, viewport, the shared stylesheet, the organisation's
 * name and logo (Settings), the subscribe page's own look (logo, accent colour, custom CSS) and a footer. Pages hand
 * in their body as HTML they escaped. The brand is added when the page is sent (sendPage), from the settings of then.
 */

export interface LayoutInput {
  readonly lang: Lang;
  /** The document title (plain text). */
  readonly title: string;
  /** The `<main>` content, already HTML. */
  readonly body: string;
  /** The subscribe page's look, when the page belongs to one. */
  readonly look?: PageLook;
  /** Who the page is for, e.g. the subscribe page's title: the logo's alternative text. */
  readonly siteName?: string;
  /** Plain-text footer (the subscribe page's `footer` setting); line breaks are kept. */
  readonly footer?: string | null;
  /** The organisation's name and logo; sendPage fills it in. */
  readonly brand?: Brand;
}

export function renderLayout(input: LayoutInput): PublicPage {
  const t = translator(common, input.lang);
  const organisation = input.brand?.name ?? '';
  const look = input.look ?? {};
  const accent = accentVariables(look.accentColor);
  const custom = safeCustomCss(look.customCss);
  const inline = (accent ? `:root{${accent}}` : '') + custom;
  const header = brandHeader(input);
  const footer = input.footer?.trim() ? escapeHtml(input.footer.trim()) : escapeHtml(t('poweredBy'));
  const html =
    `<!doctype html><html lang="${input.lang}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<meta name="robots" content="noindex"><meta name="referrer" content="no-referrer">' +
    `<title>${escapeHtml(organisation ? `${input.title} · ${organisation}` : input.title)}</title>` +
    `<link rel="stylesheet" href="${STYLESHEET_PATH}">` +
    (inline ? `<style>${inline}</style>` : '') +
    '</head><body><div class="page">' +
    header.html +
    `<main class="card">${input.body}</main>` +
    `<footer>${footer}</footer>` +
    '</div></body></html>';
  const policy = { inlineStyles: inline ? [inline] : [], imageOrigins: header.imageOrigin ? [header.imageOrigin] : [] };
  return input.brand ? { html, policy } : { html, policy, withBrand: (brand) => renderLayout({ ...input, brand }) };
}

/**
 * The page's header: the subscribe page's own logo when it has one (it is that page's look), else the organisation's
 * logo (its name the alternative text), else the organisation's name as text, else nothing (as before issue 26).
 */
function brandHeader(input: LayoutInput): { html: string; imageOrigin: string | null } {
  const t = translator(common, input.lang);
  const own = logoUrl(input.look?.logoUrl);
  if (own) {
    const alt = t('logoAlt', { name: input.siteName ?? '' });
    return { html: `<header class="brand"><img src="${escapeHtml(own.href)}" alt="${escapeHtml(alt)}"></header>`, imageOrigin: own.origin };
  }
  const name = input.brand?.name ?? '';
  const organisationLogo = input.brand?.logoUrl ? new URL(input.brand.logoUrl) : null;
  if (organisationLogo) {
    const alt = name || t('organisationLogoAlt');
    return {
      html: `<header class="brand"><img src="${escapeHtml(organisationLogo.href)}" alt="${escapeHtml(alt)}"></header>`,
      imageOrigin: organisationLogo.origin,
    };
  }
  if (name) return { html: `<header class="brand"><p class="brand-name">${textHtml(name)}</p></header>`, imageOrigin: null };
  return { html: '', imageOrigin: null };
}

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Plain text as element content (not attribute values: use escapeHtml there); quotes stay as typed. */
export function textHtml(value: string): string {
  return value.replace(/[&<>]/g, (c) => TEXT_ESCAPES[c]!);
}

/** A page of a heading and a paragraph or two (errors, notices), in the layout. */
export function messagePage(input: Omit<LayoutInput, 'body'> & { heading: string; paragraphs: readonly string[] }): PublicPage {
  const body = `<h1>${textHtml(input.heading)}</h1>` + input.paragraphs.map((p) => `<p>${textHtml(p)}</p>`).join('');
  return renderLayout({ ...input, body });
}
