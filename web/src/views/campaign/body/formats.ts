/*
 * The body's formats and the conversions between them. Whatever the format, the campaign's `content.text` is the
 * HTML (or, in the text format, the text) that is sent; the visual and Markdown formats keep their own source beside
 * it (`content.editor`, docs/api.md). Conversion libraries are imported on use, so none of them is in the shell.
 */

export type EditorFormat = 'visual' | 'richtext' | 'markdown' | 'html' | 'text';

export const FORMATS: { id: EditorFormat; label: string; hint: string }[] = [
  { id: 'visual', label: 'Visual', hint: 'Blocks: headings, text, buttons, images, columns' },
  { id: 'richtext', label: 'Rich text', hint: 'A word-processor page' },
  { id: 'markdown', label: 'Markdown', hint: 'Plain text with light markup' },
  { id: 'html', label: 'HTML', hint: 'The code itself' },
  { id: 'text', label: 'Plain text', hint: 'Text-only mail, no HTML part' },
];

/** What the editor holds: the source of formats that have one, and the body (HTML, or text) that is sent. */
export interface BodyValue {
  format: EditorFormat;
  /** Block JSON (visual) or Markdown; '' for the other formats. */
  source: string;
  body: string;
}

/**
 * Whether going from one format to another keeps what is sent exactly. To HTML always (HTML is what every format
 * produces); to visual too (the content becomes one HTML block of the layout); plain text into any format (paragraphs); and Markdown
 * and rich text into each other (the same headings, lists, emphasis and links; not Markdown's images, tables or HTML). Everything else drops
 * markup the target cannot hold, so the console asks first.
 */
export function isLossless(value: BodyValue, to: EditorFormat): boolean {
  const from = value.format;
  if (from === to || to === 'html' || to === 'visual' || from === 'text') return true;
  if (from === 'richtext' && to === 'markdown') return true;
  // Markdown's images, tables and raw HTML have no rich-text counterpart.
  return from === 'markdown' && to === 'richtext' && !/!\[|<[a-z!/]|^\s*\|/im.test(value.source);
}

export function lossOf(from: EditorFormat, to: EditorFormat): string {
  if (to === 'text')
    return 'Plain text keeps the words and the links’ addresses; layout, images and formatting are dropped, and the mail goes out as text only.';
  if (from === 'visual')
    return 'The blocks become ordinary content: colours, buttons, columns and images may not survive, and the block document is dropped.';
  if (to === 'markdown') return 'HTML that Markdown cannot express (styles, tables, layout) is dropped.';
  return 'Markup the rich-text editor does not know (styles, tables, layout, images) is dropped.';
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Plain text as HTML: a paragraph per blank-line-separated block, line breaks kept. */
export function textToHtml(text: string): string {
  return text
    .trim()
    .split(/\n\s*\n/)
    .map((para) => `<p>${escapeHtml(para.trim()).replace(/\n/g, '<br>\n')}</p>`)
    .join('\n');
}

const BLOCK_TAGS = new Set(['P', 'DIV', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'UL', 'OL', 'TABLE', 'TR', 'BLOCKQUOTE', 'PRE', 'HR', 'SECTION']);

/**
 * HTML as plain text, in the browser: blocks on their own lines, list items bulleted, links as "text (url)",
 * headings as written, images and styles dropped. (The sender derives its own text part on the server.)
 */
export function htmlToPlainText(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  doc.querySelectorAll('style, script, head, img').forEach((el) => el.remove());
  let out = '';
  const walk = (node: Node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      out += (node.textContent ?? '').replace(/\s+/g, ' ');
      return;
    }
    if (!(node instanceof Element)) return;
    const tag = node.tagName;
    if (tag === 'BR') return void (out += '\n');
    const block = BLOCK_TAGS.has(tag);
    if (block) out += '\n\n';
    if (tag === 'LI') out += '\n * ';
    node.childNodes.forEach(walk);
    if (tag === 'A') {
      const href = node.getAttribute('href') ?? '';
      if (href && href !== node.textContent?.trim() && !href.startsWith('#')) out += ` (${href})`;
    }
    if (block) out += '\n\n';
  };
  doc.body.childNodes.forEach(walk);
  return out
    .split('\n')
    .map((line) => line.trim().replace(/^\*/, ' *'))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Markdown → HTML with marked (loaded on use). Raw HTML in Markdown is kept, as Markdown allows. */
export async function markdownToHtml(markdown: string): Promise<string> {
  const { marked } = await import('marked');
  return marked.parse(markdown, { async: false, gfm: true });
}

/** HTML → Markdown with turndown (loaded on use): ATX headings, fenced code, `-` bullets. */
export async function htmlToMarkdown(html: string): Promise<string> {
  const { default: TurndownService } = await import('turndown');
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  // List items as people write them ("- one", "1. one"), tight: turndown pads markers to four columns, and the
  // paragraph the rich-text editor puts in each item would otherwise leave blank lines between items.
  service.addRule('tightListItem', {
    filter: 'li',
    replacement(content, node) {
      const list = node.parentNode as HTMLElement | null;
      const position = list ? Array.from(list.children).indexOf(node as HTMLElement) : 0;
      const start = Number(list?.getAttribute('start') ?? 1) || 1;
      const marker = list?.nodeName === 'OL' ? `${start + position}. ` : '- ';
      const body = content
        .trim()
        .replace(/\n{2,}/g, '\n')
        .replace(/\n/g, `\n${' '.repeat(marker.length)}`);
      return `${marker}${body}\n`;
    },
  });
  // Placeholders like [FIRST NAME] must stay as written, not become \[FIRST NAME\].
  return service.turndown(html).replace(/\\\[([^\]\n]{1,600})\\\]/g, '[$1]');
}

/** Plain text as Markdown: the characters Markdown would read as markup are escaped. */
function textToMarkdown(text: string): string {
  return text.replace(/([\\`*_#>])/g, '\\$1');
}

/** `value` in another format, ready for that format's editor. */
export async function convert(value: BodyValue, to: EditorFormat): Promise<BodyValue> {
  const from = value.format;
  if (from === to) return value;
  const html = from === 'text' ? textToHtml(value.body) : value.body;
  switch (to) {
    case 'html':
    case 'richtext':
      // The rich-text editor reads the HTML and writes back its own normalised HTML on the first change.
      return { format: to, source: '', body: html };
    case 'text':
      return { format: 'text', source: '', body: htmlToPlainText(html) };
    case 'markdown': {
      const markdown = from === 'text' ? textToMarkdown(value.body) : await htmlToMarkdown(html);
      return { format: 'markdown', source: markdown, body: await markdownToHtml(markdown) };
    }
    case 'visual': {
      const { documentOfHtml, renderDocument } = await import('./blocks');
      const doc = documentOfHtml(html);
      return { format: 'visual', source: JSON.stringify(doc), body: renderDocument(doc) };
    }
  }
}
