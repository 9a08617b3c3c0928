import { eq } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { links } from '../db/schema/index.js';

export interface LinkTarget {
  readonly campaignId: number;
  readonly url: string;
}

/** A tracked link's campaign and URL, or null when the link (or its campaign) is gone. */
export async function findLink(db: Executor, id: number): Promise<LinkTarget | null> {
  const [row] = await db.select({ campaignId: links.campaignId, url: links.url }).from(links).where(eq(links.id, id));
  return row ?? null;
}
