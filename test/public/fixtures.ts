import { eq, sql } from 'drizzle-orm';
import { attributeDefinitions, attributeOptions, subscribePageData, subscribePages, subscribers, subscriptions } from '../../src/db/schema/index.js';
import type { Db } from '../../src/db/client.js';
import { createAdmin, createList } from '../factories.js';

/** A subscribe page with its settings (page data), active unless told otherwise. */
export async function createPage(db: Db, title: string, data: Record<string, string | null>, active = true) {
  const owner = await createAdmin(db);
  const [page] = await db.insert(subscribePages).values({ title, active, ownerId: owner.id }).returning();
  for (const [name, value] of Object.entries(data)) await db.insert(subscribePageData).values({ pageId: page!.id, name, data: value });
  return page!;
}

export async function setPageData(db: Db, pageId: number, name: string, value: string | null) {
  await db
    .insert(subscribePageData)
    .values({ pageId, name, data: value })
    .onConflictDoUpdate({ target: [subscribePageData.pageId, subscribePageData.name], set: { data: value } });
}

async function definition(db: Db, name: string, type: string, required = false, options: string[] = []) {
  const [row] = await db.insert(attributeDefinitions).values({ name, type, required }).returning();
  const made = options.length
    ? await db
        .insert(attributeOptions)
        .values(options.map((o, i) => ({ definitionId: row!.id, name: o, listOrder: i })))
        .returning()
    : [];
  return { ...row!, options: made.sort((a, b) => a.listOrder - b.listOrder) };
}

/**
 * Two public lists and a hidden one, and one attribute of each type a form shows, on a page offering all of them.
 * Names carry a suffix so that several fixtures live in one database.
 */
export async function signupFixture(db: Db, data: Record<string, string | null> = {}) {
  const u = Math.random().toString(36).slice(2, 7);
  const news = await createList(db, { name: `Newsletter ${u}`, description: 'Once a month', isPublic: true });
  const events = await createList(db, { name: `Events ${u}`, description: 'Invitations to our events', isPublic: true });
  const hidden = await createList(db, { name: `Staff ${u}`, isPublic: false });
  const name = await definition(db, `Name ${u}`, 'textline', true);
  const country = await definition(db, `Country ${u}`, 'select', false, ['Germany', 'France', 'Other']);
  const member = await definition(db, `Member ${u}`, 'checkbox');
  const level = await definition(db, `Level ${u}`, 'radio', false, ['Beginner', 'Expert']);
  const topics = await definition(db, `Topics ${u}`, 'checkboxgroup', false, ['Books', 'Music', 'Films']);
  const birthday = await definition(db, `Birthday ${u}`, 'date');
  const note = await definition(db, `Note ${u}`, 'textarea');
  const page = await createPage(db, `Join us ${u}`, {
    intro: 'News from the club.\nNo spam.',
    button: 'Sign me up',
    thankyoupage: 'Thanks! Look for our mail.',
    lists: `${news.id},${events.id},${hidden.id}`,
    attributes: [name, country, member, level, topics, birthday, note].map((d) => d.id).join(','),
    ...data,
  });
  return { page, news, events, hidden, name, country, member, level, topics, birthday, note };
}

export async function subscriberByEmail(db: Db, email: string) {
  const [row] = await db
    .select()
    .from(subscribers)
    .where(sql`lower(${subscribers.email}) = lower(${email})`);
  return row;
}

export async function listIdsOf(db: Db, subscriberId: number) {
  const rows = await db.select().from(subscriptions).where(eq(subscriptions.subscriberId, subscriberId));
  return rows.map((r) => r.listId).sort((a, b) => a - b);
}

/** Forgets every sign-up window: the 10 minutes have passed. */
export async function forgetSignupWindows(db: Db) {
  await db.execute(sql`delete from send_rate_windows where key like 'page-%'`);
}
