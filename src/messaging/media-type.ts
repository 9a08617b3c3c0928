/*
 * What an uploaded file is, read from its first bytes, never from its name or the type the client declares: a
 * renamed executable stays an executable whatever it is called. Only the four raster formats every mail client
 * shows are accepted.
 *
 * SVG is refused, not sanitised: an SVG is a document that can carry scripts, event handlers and external
 * references, and a sanitiser that must keep up with every browser's SVG features is a large attack surface for
 * little gain, since Gmail, Outlook and most other mail clients do not display SVG images at all.
 */

export const MEDIA_TYPES = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
} as const;
export type MediaType = keyof typeof MEDIA_TYPES;

const startsWith = (bytes: Buffer, signature: readonly number[], offset = 0) =>
  bytes.length >= offset + signature.length && signature.every((b, i) => bytes[offset + i] === b);

/** The image type the bytes are, or null. */
export function detectImageType(bytes: Buffer): MediaType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) return 'image/gif';
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return null;
}

/**
 * Whether the bytes look like SVG (so the refusal can say why). Only the first kilobyte is looked at, with a plain
 * substring search: no regular expression runs over the upload.
 */
export function looksLikeSvg(bytes: Buffer): boolean {
  return bytes.subarray(0, 1024).toString('latin1').toLowerCase().includes('<svg');
}

const MAX_STEM = 80;

/**
 * The name an image is served under: the uploaded name's last segment without its extension, reduced to letters,
 * digits, `.`, `_` and `-` (a run of anything else becomes one `-`), then the extension of the type the bytes
 * are. It is part of a URL written into mail, so it must need no escaping; it is never used to find a file.
 */
export function mediaFilename(uploaded: string, type: MediaType): string {
  const last = uploaded.split(/[/\\]/).pop() ?? '';
  const dot = last.lastIndexOf('.');
  const stem = (dot > 0 ? last.slice(0, dot) : last)
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+/, '')
    .slice(0, MAX_STEM)
    .replace(/[-.]+$/, '');
  return `${stem || 'image'}.${MEDIA_TYPES[type]}`;
}
