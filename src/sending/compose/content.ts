import { convert } from 'html-to-text';
import { LINK_MARK_CLOSE, LINK_MARK_OPEN } from './placeholders.js';

/*
 * The campaign's two bodies before personalisation (reference §7.2 step 2 and §7.3): the template merged around the
 * content, the footer placed, the text part written or derived, the open pixel's place marked. Placeholders stay
 * as written; compile.ts cuts them into slots afterwards.
 */

export interface ContentSource {
  /** Whether the campaign is sent as text only (`send_format` text). */
  readonly textOnly: boolean;
  readonly body: string;
  readonly textBody: string;
  readonly footer: string;
  readonly templateHtml: string | null;
  readonly templateText: string | null;
}

export interface MergedContent {
  /** null for text-only campaigns. */
  readonly html: string | null;
  readonly text: string;
}

const CONTENT = /\[CONTENT\]/i;
const HAS_FOOTER = /\[FOOTER\]/i;
const FOOTERS = /\[FOOTER\]/gi;
const USERTRACK = /\[USERTRACK\]/i;
const HTML_TAG = /<\/?[a-z][a-z0-9]*(?:\s[^>]*)?\/?>/i;

/** Newlines as LF, and none of the private-use characters the compiler marks links with. */
function clean(text: string): string {
  return text.replace(/\r\n?/g, '\n').replaceAll(LINK_MARK_OPEN, '').replaceAll(LINK_MARK_CLOSE, '');
}

export function looksLikeHtml(text: string): boolean {
  return HTML_TAG.test(text);
}

/** The template with `[CONTENT]` replaced by the content; the content alone without a usable template. */
function mergeTemplate(template: string | null, content: string): string {
  if (!template || !CONTENT.test(template)) return content;
  return template.replace(CONTENT, () => content);
}

/** `html` with `insert` placed before its closing `</body>`, or at its end when it has none. */
export function beforeBodyEnd(html: string, insert: string): string {
  const at = html.search(/<\/body\s*>(?![\s\S]*<\/body\s*>)/i);
  return at < 0 ? html + insert : html.slice(0, at) + insert + html.slice(at);
}

/** `html` with `insert` placed right after its opening `<body …>`, or at its start when it has none. */
export function afterBodyStart(html: string, insert: string): string {
  const open = /<body(?:\s[^>]*)?>/i.exec(html);
  if (!open) return insert + html;
  const at = open.index + open[0].length;
  return html.slice(0, at) + insert + html.slice(at);
}

/**
 * Plain text of an HTML body. Placeholders are swapped for opaque tokens first: word wrapping must not split
 * `[FIRST NAME%%dear reader]` at a space, nor heading upper-casing change a default.
 */
export function htmlToText(html: string): string {
  const saved: string[] = [];
  const guarded = html.replace(/\[[^[\]\r\n]{1,600}\]/g, (placeholder) => {
    saved.push(placeholder);
    return `${LINK_MARK_OPEN}P${saved.length - 1}${LINK_MARK_CLOSE}`;
  });
  const text = convert(guarded, {
    wordwrap: 78,
    selectors: [
      { selector: 'img', format: 'skip' },
      // Headings keep their case: upper-cased they shout, and they would change a name or a product as written.
      ...(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'] as const).map((selector) => ({ selector, options: { uppercase: false } })),
      // "our site (https://…)", the way people write a link in plain text; a bare address is not repeated.
      { selector: 'a', options: { linkBrackets: ['(', ')'] as [string, string], hideLinkHrefIfSameAsText: true } },
      // Layout tables are the rule in mail templates: their cells read as blocks, not as a squeezed row.
      { selector: 'table', format: 'block' },
      { selector: 'tr', format: 'block' },
      { selector: 'td', format: 'block' },
      { selector: 'th', format: 'block' },
    ],
  });
  return text.replace(/\uE000P(\d+)\uE001/g, (_, i: string) => saved[Number(i)] ?? '');
}

function textOf(value: string): string {
  return looksLikeHtml(value) ? htmlToText(value) : value.trim();
}

/** The footer as HTML: as written when it is HTML, otherwise its lines joined with `<br>`. */
function footerHtml(footer: string): string {
  if (!footer.trim()) return '';
  return looksLikeHtml(footer) ? footer : footer.trim().replace(/\n/g, '<br>\n');
}

export function mergeContent(source: ContentSource): MergedContent {
  const body = clean(source.body);
  const textBody = clean(source.textBody);
  const footer = clean(source.footer);
  const templateHtml = source.templateHtml === null ? null : clean(source.templateHtml);
  const templateText = source.templateText === null ? null : clean(source.templateText);

  let html: string | null = null;
  if (!source.textOnly) {
    html = mergeTemplate(templateHtml, body);
    // Reference §7.3: the footer is appended when the body has no [FOOTER] of its own.
    const footerPart = footerHtml(footer);
    if (HAS_FOOTER.test(html)) html = html.replace(FOOTERS, () => footerPart);
    else if (footerPart) html = beforeBodyEnd(html, `\n${footerPart}\n`);
    if (!USERTRACK.test(html)) html = beforeBodyEnd(html, '[USERTRACK]');
  }

  let text: string;
  if (textBody.trim()) text = mergeTemplate(templateText, textBody);
  else if (source.textOnly) text = mergeTemplate(templateText, textOf(body));
  else if (templateText && CONTENT.test(templateText)) text = mergeTemplate(templateText, htmlToText(body));
  else text = htmlToText(mergeTemplate(templateHtml, body));
  const footerText = footer.trim() ? textOf(footer) : '';
  if (HAS_FOOTER.test(text)) text = text.replace(FOOTERS, () => footerText);
  else if (footerText) text = `${text.trimEnd()}\n\n${footerText}`;
  return { html, text };
}
