import { PLACEHOLDER_NAME, normaliseName } from '../../shared/placeholder-name.js';
import { SOFT_BREAK, encodeQuotedPrintable } from './mime.js';

/*
 * Placeholders (reference §7.3) are found once per campaign: a body becomes static pieces, already encoded as
 * quoted-printable, with slots between them that a recipient's values fill. Rendering is then string joins.
 */

/** What a slot is filled with, per recipient. */
export type SlotKind =
  | 'email'
  | 'uniqueId'
  | 'confirmed'
  | 'blacklisted'
  | 'disabled'
  | 'htmlEmail'
  | 'bounceCount'
  | 'entered'
  | 'modified'
  | 'unsubscribeUrl'
  | 'preferencesUrl'
  | 'confirmationUrl'
  | 'forwardUrl'
  | 'lists'
  | 'attribute'
  | 'trackedLink';

export interface Slot {
  readonly kind: SlotKind;
  /** The attribute's normalised name (`attribute`), or the index of the campaign's tracked URL (`trackedLink`). */
  readonly key: string;
  readonly index: number;
  /** `[NAME%%default]`: the text used when the value is empty, as written in the body (HTML in the HTML part). */
  readonly fallback: string;
  /** Slots of one body that always get the same text share an id: a mail encodes each value once. */
  readonly valueId: number;
}

/**
 * A body ready to render: `pieces.length === slots.length + 1`, each piece quoted-printable encoded on its own, to
 * be joined with the slots' values by soft line breaks.
 */
export interface CompiledBody {
  readonly pieces: readonly string[];
  readonly slots: readonly Slot[];
  /** How many distinct values the slots take (valueId < valueCount). */
  readonly valueCount: number;
}

export type Part = 'html' | 'text';

/** How one placeholder name reads at compile time. */
export type Resolution =
  | { readonly static: string }
  | { readonly slot: SlotKind; readonly key?: string }
  /** Not a placeholder we know: left as written, unless it has a default. */
  | null;

/** Marks a tracked link's place in a body before slots are cut (private-use characters, removed from sources). */
export const LINK_MARK_OPEN = '\uE000';
export const LINK_MARK_CLOSE = '\uE001';
export const linkMark = (index: number) => `${LINK_MARK_OPEN}L${index}${LINK_MARK_CLOSE}`;

/**
 * `[NAME]` or `[NAME%%default]`. Names exclude the characters of URLs and markup (PLACEHOLDER_NAME) so that bracketed
 * URLs (`[https://…]`, as html-to-text writes links) and CSS or conditional-comment brackets are not taken for
 * placeholders with a default; whatever is not recognised is left as written anyway.
 */
const TOKEN = new RegExp(`\\uE000L(\\d+)\\uE001|\\[(${PLACEHOLDER_NAME})(?:%%([^[\\]\\r\\n]{0,500}))?\\]`, 'g');

export interface PlaceholderUse {
  /** Normalised name. */
  readonly name: string;
  /** Offset of its `[` in the source. */
  readonly index: number;
  readonly written: string;
  readonly hasDefault: boolean;
}

/** The placeholders written in `source`, read as compileBody reads them (for the campaign checks). */
export function placeholdersIn(source: string): PlaceholderUse[] {
  const uses: PlaceholderUse[] = [];
  for (const match of source.matchAll(TOKEN)) {
    if (match[2] === undefined) continue;
    uses.push({ name: normaliseName(match[2]), index: match.index, written: match[0], hasDefault: match[3] !== undefined });
  }
  return uses;
}

export { normaliseName };

/**
 * The same ASCII text as a one-byte string. A slice of a source that holds any character above U+00FF is a two-byte
 * string even when the slice is ASCII, and a mail joined from such pieces would be converted character by character
 * when written out instead of copied.
 */
export function oneByte(ascii: string): string {
  return Buffer.from(ascii, 'latin1').toString('latin1');
}

/**
 * Cuts `source` into encoded pieces and slots, asking `resolve` what each placeholder name is. `plain`: the pieces
 * stay text (a header's, encoded when the whole header is), and no soft break ends the last one.
 */
export function compileBody(source: string, resolve: (name: string) => Resolution, plain = false): CompiledBody {
  const encode = plain ? (text: string) => text : (text: string) => oneByte(encodeQuotedPrintable(text));
  const pieces: string[] = [];
  const slots: Slot[] = [];
  const valueIds = new Map<string, number>();
  const addSlot = (kind: SlotKind, key: string, index: number, fallback: string) => {
    const identity = `${kind}\u0000${key}\u0000${index}\u0000${fallback}`;
    let valueId = valueIds.get(identity);
    if (valueId === undefined) valueIds.set(identity, (valueId = valueIds.size));
    pieces.push(encode(text));
    slots.push({ kind, key, index, fallback, valueId });
    text = '';
  };
  let text = '';
  let last = 0;
  for (const match of source.matchAll(TOKEN)) {
    text += source.slice(last, match.index);
    last = match.index + match[0].length;
    if (match[1] !== undefined) {
      addSlot('trackedLink', '', Number(match[1]), '');
      continue;
    }
    const resolution = resolve(normaliseName(match[2]!));
    const fallback = match[3];
    if (resolution === null) {
      text += fallback === undefined ? match[0] : fallback;
    } else if ('static' in resolution) {
      text += resolution.static || (fallback ?? '');
    } else {
      addSlot(resolution.slot, resolution.key ?? '', 0, fallback ?? '');
    }
  }
  text += source.slice(last);
  // Ending on a soft break: the line end before the next boundary is then the boundary's, and the body decodes to
  // exactly the source, without a trailing newline.
  pieces.push(plain ? text : oneByte(encodeQuotedPrintable(text) + SOFT_BREAK));
  return { pieces, slots, valueCount: valueIds.size };
}

export { escapeHtml } from '../../shared/html.js';
