import { marked } from 'marked';

/*
 * The visual format's document and its renderer. The document has EmailBuilder.js's shape (the builder listmonk
 * integrated: `{root: {type: 'EmailLayout', data: {childrenIds}}, <id>: {type, data: {style, props}}}`) and its block
 * names, so a document written here reads there and back. The renderer is ours (see the commit that added it: the
 * library's renderer needs React 18 and react-dom/server in the page, 31 KB gzipped more, and lays blocks out in
 * divs): every block is a table row with inline styles, columns are the "fluid hybrid" pattern (inline-block cells
 * that stack below their width, with a fixed table for Outlook's Word engine), so it renders in the major clients'
 * engines without a <style> sheet or media queries. It writes a fragment, not a document: a template wraps it.
 */

export type BlockType = 'Heading' | 'Text' | 'Button' | 'Image' | 'ColumnsContainer' | 'Divider' | 'Spacer' | 'Html';
export type Align = 'left' | 'center' | 'right';

interface Padding {
  top: number;
  bottom: number;
  left: number;
  right: number;
}
interface Style {
  padding?: Padding;
  textAlign?: Align;
  color?: string;
}

export type Block =
  | { type: 'Heading'; data: { style?: Style; props: { text: string; level: 'h1' | 'h2' | 'h3' } } }
  | { type: 'Text'; data: { style?: Style; props: { text: string; markdown?: boolean } } }
  | {
      type: 'Button';
      data: { style?: Style; props: { text: string; url: string; buttonBackgroundColor?: string; buttonTextColor?: string } };
    }
  | { type: 'Image'; data: { style?: Style; props: { url: string; alt: string; linkHref?: string | null } } }
  | { type: 'ColumnsContainer'; data: { style?: Style; props: { columnsCount: 2 | 3; columns: { childrenIds: string[] }[] } } }
  | { type: 'Divider'; data: { style?: Style; props: { lineColor?: string; lineHeight?: number } } }
  | { type: 'Spacer'; data: { style?: Style; props: { height: number } } }
  | { type: 'Html'; data: { style?: Style; props: { contents: string } } };

export interface Layout {
  type: 'EmailLayout';
  data: { backdropColor?: string; canvasColor?: string; textColor?: string; childrenIds: string[] };
}

/** `root` is the layout; every other key a block. */
export type BlockDocument = { root: Layout } & Record<string, Layout | Block>;

export const BLOCK_LABELS: Record<BlockType, string> = {
  Heading: 'Heading',
  Text: 'Text',
  Button: 'Button',
  Image: 'Image',
  ColumnsContainer: 'Columns',
  Divider: 'Divider',
  Spacer: 'Spacer',
  Html: 'HTML',
};

const WIDTH = 600;
/** Pixels the columns of a row leave free together (see ColumnsContainer). */
const COLUMN_SLACK = 24;
const GUTTER = 24;
const FONT = "-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";
const DEFAULT_PADDING: Padding = { top: 8, bottom: 8, left: GUTTER, right: GUTTER };

let counter = 0;
/** A fresh block id, unique within the page's lifetime and across reloads. */
export function newId(): string {
  counter += 1;
  return `b${Date.now().toString(36)}${counter.toString(36)}`;
}

export function newBlock(type: BlockType): Block {
  switch (type) {
    case 'Heading':
      return { type, data: { props: { text: 'A heading', level: 'h2' } } };
    case 'Text':
      return { type, data: { props: { text: 'Write here. **Bold**, *italic* and [links](https://example.com) work.', markdown: true } } };
    case 'Button':
      return { type, data: { style: { textAlign: 'center' }, props: { text: 'Read more', url: 'https://', buttonBackgroundColor: '#2450c8' } } };
    case 'Image':
      return { type, data: { props: { url: 'https://', alt: '' } } };
    case 'ColumnsContainer':
      return { type, data: { props: { columnsCount: 2, columns: [{ childrenIds: [] }, { childrenIds: [] }, { childrenIds: [] }] } } };
    case 'Divider':
      return { type, data: { props: { lineColor: '#d0d5dd', lineHeight: 1 } } };
    case 'Spacer':
      return { type, data: { props: { height: 24 } } };
    case 'Html':
      return { type, data: { props: { contents: '<p>HTML</p>' } } };
  }
}

/** A new document: a heading, a text and the footer with the unsubscribe link, so the checks pass from the start. */
export function starterDocument(): BlockDocument {
  const ids = [newId(), newId(), newId(), newId()];
  return {
    root: { type: 'EmailLayout', data: { backdropColor: '#f2f4f7', canvasColor: '#ffffff', textColor: '#1d2939', childrenIds: ids } },
    [ids[0]!]: { type: 'Heading', data: { props: { text: 'Hello [FIRST NAME%%there]', level: 'h1' } } },
    [ids[1]!]: newBlock('Text'),
    [ids[2]!]: newBlock('Divider'),
    [ids[3]!]: {
      type: 'Text',
      data: { style: { textAlign: 'center', color: '#667085' }, props: { text: 'No longer interested? [UNSUBSCRIBE]', markdown: true } },
    },
  };
}

/** A document holding `html` as its one HTML block: what the other formats become, sent exactly as before. */
export function documentOfHtml(html: string): BlockDocument {
  const doc = starterDocument();
  const id = newId();
  return { root: { ...doc.root, data: { ...doc.root.data, childrenIds: [id] } }, [id]: { type: 'Html', data: { props: { contents: html } } } };
}

/** The parsed document, or null when the text is not one (a hand-edited source, another program's). */
export function parseDocument(source: string): BlockDocument | null {
  try {
    const value = JSON.parse(source) as unknown;
    if (typeof value !== 'object' || value === null) return null;
    const root = (value as Record<string, unknown>).root as Layout | undefined;
    return root && root.type === 'EmailLayout' && Array.isArray(root.data?.childrenIds) ? (value as BlockDocument) : null;
  } catch {
    return null;
  }
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Colours go into style attributes: only #hex and plain names, nothing that could close the attribute. */
const colour = (value: string | undefined, fallback: string) => (value && /^(#[0-9a-f]{3,8}|[a-z]{3,20})$/i.test(value) ? value : fallback);
const px = (n: number | undefined, fallback: number, max = 600) => (Number.isFinite(n) ? Math.min(Math.max(0, Math.round(n!)), max) : fallback);

function paddingCss(style: Style | undefined, fallback = DEFAULT_PADDING): string {
  const p = style?.padding ?? fallback;
  return `padding:${px(p.top, 8)}px ${px(p.right, GUTTER)}px ${px(p.bottom, 8)}px ${px(p.left, GUTTER)}px`;
}

/** Inline Markdown of a Text block (bold, italic, links), as EmailBuilder's `markdown: true` reads it; else text with line breaks. */
function textHtml(text: string, markdown: boolean | undefined): string {
  if (!markdown) return escapeHtml(text).replace(/\n/g, '<br>');
  // Raw HTML in a text block is shown as text: the HTML block is there for markup.
  return text
    .split(/\n{2,}/)
    .map((para) => marked.parseInline(escapeHtml(para), { async: false }).replace(/\n/g, '<br>'))
    .join('<br><br>');
}

const HEADING_SIZES = { h1: 28, h2: 22, h3: 18 };

interface Context {
  doc: BlockDocument;
  text: string;
  width: number;
}

function cell(content: string, css: string): string {
  return `<tr><td style="${css}">${content}</td></tr>`;
}

function renderBlock(id: string, ctx: Context, depth: number): string {
  const block = ctx.doc[id];
  if (!block || block.type === 'EmailLayout') return '';
  const style = block.data.style;
  const align = style?.textAlign ?? 'left';
  const base = `${paddingCss(style)};font-family:${FONT};color:${colour(style?.color, ctx.text)};text-align:${align}`;
  switch (block.type) {
    case 'Heading': {
      const { text, level } = block.data.props;
      const tag = level in HEADING_SIZES ? level : 'h2';
      const size = HEADING_SIZES[tag];
      return cell(`<${tag} style="margin:0;font-size:${size}px;line-height:1.3;font-weight:bold">${escapeHtml(text)}</${tag}>`, base);
    }
    case 'Text':
      return cell(`<p style="margin:0;font-size:16px;line-height:1.55">${textHtml(block.data.props.text, block.data.props.markdown)}</p>`, base);
    case 'Button': {
      const { text, url, buttonBackgroundColor, buttonTextColor } = block.data.props;
      const bg = colour(buttonBackgroundColor, '#2450c8');
      const fg = colour(buttonTextColor, '#ffffff');
      const table =
        `<table role="presentation" cellpadding="0" cellspacing="0" border="0" align="${align}" style="margin:0 ${align === 'center' ? 'auto' : '0'}">` +
        `<tr><td bgcolor="${bg}" style="border-radius:6px;background-color:${bg}">` +
        `<a href="${escapeHtml(url)}" target="_blank" style="display:inline-block;padding:12px 24px;font-family:${FONT};font-size:16px;` +
        `font-weight:bold;line-height:1.2;color:${fg};text-decoration:none;border-radius:6px">${escapeHtml(text)}</a></td></tr></table>`;
      return cell(table, base);
    }
    case 'Image': {
      const { url, alt, linkHref } = block.data.props;
      const width = ctx.width - (style?.padding ? px(style.padding.left, 0) + px(style.padding.right, 0) : 2 * GUTTER);
      const img =
        `<img src="${escapeHtml(url)}" alt="${escapeHtml(alt)}" width="${width}" ` +
        `style="display:block;width:100%;max-width:${width}px;height:auto;border:0;outline:none;text-decoration:none${align === 'center' ? ';margin:0 auto' : ''}">`;
      return cell(linkHref ? `<a href="${escapeHtml(linkHref)}" target="_blank">${img}</a>` : img, base);
    }
    case 'Divider': {
      const { lineColor, lineHeight } = block.data.props;
      const line = `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"><tr><td style="border-top:${px(lineHeight, 1, 8)}px solid ${colour(lineColor, '#d0d5dd')};font-size:1px;line-height:1px">&nbsp;</td></tr></table>`;
      return cell(line, paddingCss(style, { top: 16, bottom: 16, left: GUTTER, right: GUTTER }));
    }
    case 'Spacer': {
      const height = px(block.data.props.height, 24, 400);
      return cell('&nbsp;', `height:${height}px;line-height:${height}px;font-size:1px`);
    }
    case 'Html':
      return cell(block.data.props.contents, base);
    case 'ColumnsContainer': {
      if (depth > 0) return '';
      const count = block.data.props.columnsCount === 3 ? 3 : 2;
      const columns = block.data.props.columns.slice(0, count);
      const inner = ctx.width - 2 * (GUTTER / 2);
      // Each column a little narrower than an exact share: a mail pane or browser with its own body margin (8 px a
      // side by default) is a few pixels short of 600, and exact shares would put the columns on two rows there.
      const each = Math.floor((inner - COLUMN_SLACK) / count);
      const columnHtml = columns.map((column) => {
        const rows = column.childrenIds.map((child) => renderBlock(child, { ...ctx, width: each }, depth + 1)).join('');
        return (
          `<!--[if mso]><td width="${each}" valign="top"><![endif]-->` +
          `<div style="display:inline-block;width:100%;max-width:${each}px;vertical-align:top">` +
          `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">${rows}</table></div>` +
          '<!--[if mso]></td><![endif]-->'
        );
      });
      return cell(
        `<!--[if mso]><table role="presentation" width="${inner}" cellpadding="0" cellspacing="0" border="0"><tr><![endif]-->` +
          columnHtml.join('') +
          '<!--[if mso]></tr></table><![endif]-->',
        `padding:0 ${GUTTER / 2}px;font-size:0;text-align:${align}`,
      );
    }
  }
}

/** The document as the HTML that is sent: a centred 600-pixel table on the backdrop, a row per block. */
export function renderDocument(doc: BlockDocument): string {
  const layout = doc.root.data;
  const backdrop = colour(layout.backdropColor, '#f2f4f7');
  const canvas = colour(layout.canvasColor, '#ffffff');
  const ctx: Context = { doc, text: colour(layout.textColor, '#1d2939'), width: WIDTH };
  const rows = layout.childrenIds.map((id) => renderBlock(id, ctx, 0)).join('\n');
  return (
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="${backdrop}" style="background-color:${backdrop}">` +
    `<tr><td align="center" style="padding:24px 0">\n` +
    `<!--[if mso]><table role="presentation" width="${WIDTH}" cellpadding="0" cellspacing="0" border="0"><tr><td><![endif]-->\n` +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="${canvas}" ` +
    `style="max-width:${WIDTH}px;background-color:${canvas};border-collapse:collapse">\n${rows}\n</table>\n` +
    '<!--[if mso]></td></tr></table><![endif]-->\n</td></tr></table>\n'
  );
}
