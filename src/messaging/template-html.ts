import { Parser } from 'htmlparser2';

/*
 * What a template's HTML links to and embeds, read with a real HTML parser (attribute quoting, entities and
 * comments are the parser's business, not a regex's).
 */

export interface ImageRef {
  /** The `src` as written (entities decoded). */
  src: string;
  width: number | null;
  height: number | null;
}

export interface TemplateRefs {
  /** Every `<a href>` in document order. */
  links: string[];
  /** Every distinct `<img src>` in document order (the first occurrence's width and height). */
  images: ImageRef[];
}

export function scanTemplateHtml(html: string): TemplateRefs {
  const links: string[] = [];
  const images = new Map<string, ImageRef>();
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === 'a' && attribs.href !== undefined) links.push(attribs.href.trim());
        if (name === 'img' && attribs.src !== undefined) {
          const src = attribs.src.trim();
          if (src && !images.has(src)) {
            images.set(src, { src, width: dimension(attribs.width), height: dimension(attribs.height) });
          }
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return { links, images: [...images.values()] };
}

/** `width="600"` → 600; percentages, units and nonsense → null. */
function dimension(value: string | undefined): number | null {
  if (value === undefined || !/^\s*\d{1,6}\s*$/.test(value)) return null;
  return Number(value);
}

/** The placeholders phpList accepts in place of a full URL when `check_links` is on (reference §5.15). */
const LINK_PLACEHOLDERS = new Set(['[PREFERENCESURL]', '[UNSUBSCRIBEURL]', '[BLACKLISTURL]', '[FORWARDURL]', '[CONFIRMATIONURL]']);

export function isFullHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Links that are neither full http(s) URLs, `mailto:` addresses nor one of the URL placeholders. */
export function linksNotFull(links: readonly string[]): string[] {
  return links.filter((href) => !isFullHttpUrl(href) && !/^mailto:\S/i.test(href) && !LINK_PLACEHOLDERS.has(href.toUpperCase()));
}

/** Image sources that are not full http(s) URLs. */
export function imagesNotFull(images: readonly ImageRef[]): string[] {
  return images.map((i) => i.src).filter((src) => !isFullHttpUrl(src));
}

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  avif: 'image/avif',
};
const EXTENSION_BY_MIME = Object.fromEntries(Object.entries(MIME_BY_EXTENSION).map(([ext, mime]) => [mime, ext]));

export interface ExtractedImage {
  filename: string | null;
  mimeType: string | null;
  /** The bytes of a `data:` image; null for a remote one (it is not fetched). */
  data: Buffer | null;
  width: number | null;
  height: number | null;
}

/**
 * The template's images as rows (reference §5.15: re-extracted on every write). A `data:` URI is decoded into its
 * bytes and MIME type; any other source is recorded by its address, with a MIME type guessed from its extension
 * and no bytes: fetching remote images at save time would make every save depend on third-party servers.
 */
export function extractImages(images: readonly ImageRef[]): ExtractedImage[] {
  return images.map((image, index) => {
    const inline = decodeDataUri(image.src);
    if (inline) {
      const ext = EXTENSION_BY_MIME[inline.mimeType] ?? 'bin';
      return { filename: `image-${index + 1}.${ext}`, mimeType: inline.mimeType, data: inline.data, width: image.width, height: image.height };
    }
    const path = image.src.split(/[?#]/, 1)[0] ?? '';
    const ext = /\.([A-Za-z0-9]{1,5})$/.exec(path)?.[1]?.toLowerCase();
    return {
      filename: image.src,
      mimeType: (ext && MIME_BY_EXTENSION[ext]) ?? null,
      data: null,
      width: image.width,
      height: image.height,
    };
  });
}

/** RFC 2397 `data:[<mediatype>][;base64],<data>`, or null when `src` is not one. */
function decodeDataUri(src: string): { mimeType: string; data: Buffer } | null {
  const match = /^data:([^,]*),(.*)$/is.exec(src);
  if (!match) return null;
  const meta = (match[1] ?? '').split(';').map((p) => p.trim());
  const base64 = meta.includes('base64') || meta.includes('BASE64');
  const mimeType = (meta[0] && /^[\w.+-]+\/[\w.+-]+$/.test(meta[0]) ? meta[0] : 'text/plain').toLowerCase();
  const payload = match[2] ?? '';
  try {
    const data = base64 ? Buffer.from(payload.replace(/\s+/g, ''), 'base64') : Buffer.from(decodeURIComponent(payload), 'utf8');
    return { mimeType, data };
  } catch {
    return { mimeType, data: Buffer.alloc(0) };
  }
}
