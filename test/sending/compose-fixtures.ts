import { Readable } from 'node:stream';
import type { ParsedMail } from 'mailparser';
import type { Db } from '../../src/db/client.js';
import { attachments, attributeDefinitions, attributeOptions, subscriberAttributeValues } from '../../src/db/schema/index.js';
import { attachmentStorage } from '../../src/messaging/attachment-storage.js';
import type { TestApp } from '../helper.js';
import type { ReceivedMail } from '../smtp-sink.js';

/*
 * Scene-setting for the composer's tests: attributes with options, stored attachments, and reading a received mail's
 * raw header block (mailparser interprets List-* headers; the tests want them as written).
 */

let sequence = 0;

/** An attribute definition (with options for the option types); answers its id and its options' ids by name. */
export async function createAttribute(db: Db, name: string, type: string, optionNames: readonly string[] = []) {
  const [definition] = await db.insert(attributeDefinitions).values({ name, type }).returning();
  const options = new Map<string, number>();
  if (optionNames.length > 0) {
    const rows = await db
      .insert(attributeOptions)
      .values(optionNames.map((option, i) => ({ definitionId: definition!.id, name: option, listOrder: i })))
      .returning();
    for (const row of rows) options.set(row.name, row.id);
  }
  return { id: definition!.id, options };
}

export async function setAttribute(db: Db, subscriberId: number, definitionId: number, value: string | null) {
  await db.insert(subscriberAttributeValues).values({ subscriberId, definitionId, value });
}

/** Stores bytes in attachment storage and attaches them to the campaign. */
export async function attachFile(t: TestApp, campaignId: number, filename: string, mimeType: string, data: Buffer) {
  const stored = await attachmentStorage(t.ctx).put(Readable.from([data]));
  const [row] = await t.db.insert(attachments).values({ campaignId, filename, mimeType, size: stored.size, contentHash: stored.hash }).returning();
  return row!;
}

/** The raw header block as `name (lower case) → values`, continuation lines unfolded. */
export function rawHeaders(mail: ReceivedMail): Map<string, string[]> {
  const text = mail.raw.toString('latin1');
  const block = text.slice(0, text.indexOf('\r\n\r\n'));
  const out = new Map<string, string[]>();
  for (const line of block.replace(/\r\n[ \t]/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    out.set(name, [...(out.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  return out;
}

/** The one value of a raw header (asserting there is exactly one). */
export function rawHeader(mail: ReceivedMail, name: string): string | undefined {
  const values = rawHeaders(mail).get(name.toLowerCase());
  if (values && values.length > 1) throw new Error(`header ${name} appears ${values.length} times`);
  return values?.[0];
}

/** The html part as text (mailparser answers `false` when there is none). */
export function htmlOf(parsed: ParsedMail): string | null {
  return typeof parsed.html === 'string' ? parsed.html : null;
}

/** A unique address for a subscriber created in a test. */
export function uniqueEmail(prefix = 'reader'): string {
  return `${prefix}-${Date.now().toString(36)}-${(sequence++).toString(36)}@example.com`;
}
