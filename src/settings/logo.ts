import { createHash } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../context.js';
import { organisationLogo } from '../db/schema/index.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import { writeValues } from './settings.repository.js';
import type { Settings } from './settings.schemas.js';
import { settingsView } from './settings.service.js';

/*
 * The organisation's logo (issue 26): uploaded as the image's own bytes, its type read from the bytes (not from what
 * the client says), kept in the database so that every process serves it, and served by its hash.
 */

/** Largest logo accepted, in bytes: a logo is shown small, on every public page and in system mail. */
export const LOGO_MAX_BYTES = 512 * 1024;
export const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** The image type the bytes begin with; SVG is not taken (it may carry script). */
export function sniffImageType(bytes: Buffer): string | null {
  const starts = (offset: number, ...values: number[]) => values.every((v, i) => bytes[offset + i] === v);
  if (starts(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (bytes.subarray(0, 6).toString('latin1') === 'GIF87a' || bytes.subarray(0, 6).toString('latin1') === 'GIF89a') return 'image/gif';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return null;
}

export async function putLogo(ctx: AppContext, bytes: Buffer, adminId: number): Promise<Settings> {
  const contentType = sniffImageType(bytes);
  if (!contentType) throw ValidationError.field('logo', 'The logo must be a PNG, JPEG, GIF or WebP image (read from the file itself).');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  await ctx.db.transaction(async (tx) => {
    await tx
      .insert(organisationLogo)
      .values({ id: 1, contentType, bytes, sha256 })
      .onConflictDoUpdate({ target: organisationLogo.id, set: { contentType, bytes, sha256, updatedAt: sql`now()` } });
    await writeValues(tx, { logo: { sha256, contentType, size: bytes.length } }, adminId);
  });
  await ctx.settings.refresh();
  return settingsView(ctx);
}

export async function deleteLogo(ctx: AppContext, adminId: number): Promise<Settings> {
  await ctx.db.transaction(async (tx) => {
    await tx.delete(organisationLogo).where(eq(organisationLogo.id, 1));
    await writeValues(tx, { logo: null }, adminId);
  });
  await ctx.settings.refresh();
  return settingsView(ctx);
}

/** The logo's bytes when `sha256` is the current one's; an older address answers 404. */
export async function readLogo(ctx: AppContext, sha256: string): Promise<{ contentType: string; bytes: Buffer }> {
  const [row] = await ctx.db
    .select({ contentType: organisationLogo.contentType, bytes: organisationLogo.bytes })
    .from(organisationLogo)
    .where(eq(organisationLogo.sha256, sha256));
  if (!row) throw new NotFoundError('No such logo.');
  return row;
}
