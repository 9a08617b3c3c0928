import { CRLF, header, mailbox, textHeader } from './mime.js';
import { compileBody, LINK_MARK_CLOSE, LINK_MARK_OPEN, type Resolution, type Slot } from './placeholders.js';

/*
 * The From and Subject lines, with placeholders as in the body (`Hello [FIRST NAME%%reader]`). A campaign whose
 * subject and From name have none gets the lines built once; otherwise they are filled per recipient, values cleaned
 * of line ends and control characters (no header of the recipient's own making), then RFC 2047-encoded when not
 * ASCII, by the same functions that write the static lines.
 */

/** Runs of control characters (CR and LF among them) become one space. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\x00-\x1f\x7f]+/g;

export function headerSafe(value: string): string {
  return value.replace(CONTROL, ' ');
}

/** The recipient's value of a slot, as text (render.ts). */
export type SlotText = (slot: Slot) => string;

/** `From:` and `Subject:` lines, CRLF-terminated: static, or made per recipient. */
export type HeadLines = string | ((text: SlotText) => string);

export function fromAndSubject(from: { name: string; address: string }, subject: string, resolve: (name: string) => Resolution): HeadLines {
  // The private-use marks of tracked links mean something to compileBody; a header has none.
  const marks = new RegExp(`[${LINK_MARK_OPEN}${LINK_MARK_CLOSE}]`, 'g');
  const name = compileBody(headerSafe(from.name).replace(marks, ''), resolve, true);
  const title = compileBody(headerSafe(subject).replace(marks, ''), resolve, true);
  const lines = (fromName: string, subjectText: string) =>
    header('From', mailbox(fromName, from.address)) + CRLF + textHeader('Subject', subjectText) + CRLF;
  if (name.slots.length === 0 && title.slots.length === 0) return lines(name.pieces[0]!, title.pieces[0]!);
  const fill = (compiled: typeof name, text: SlotText) => {
    let out = compiled.pieces[0]!;
    for (let i = 0; i < compiled.slots.length; i++) {
      const slot = compiled.slots[i]!;
      out += headerSafe(text(slot) || slot.fallback) + compiled.pieces[i + 1]!;
    }
    return out;
  };
  return (text) => lines(fill(name, text), fill(title, text));
}
