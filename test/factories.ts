import { randomBytes } from 'node:crypto';
import type { Db } from '../src/db/client.js';
import { administrators, bounces, campaigns, deliveries, links, lists, sessions, subscribers, subscriptions } from '../src/db/schema/index.js';
import { privilegeColumns } from '../src/identity/administrator.repository.js';
import type { Privilege } from '../src/identity/administrator.schemas.js';
import { hashPassword } from '../src/identity/password.js';
import { hashSecret, newSecret } from '../src/identity/tokens.js';

/*
 * Factories insert rows directly, for setting the scene; the behaviour under test goes through HTTP.
 */

const hashes = new Map<string, Promise<string>>();
/** scrypt is slow on purpose; a test run hashes each distinct password once. */
function cachedHash(password: string): Promise<string> {
  let hash = hashes.get(password);
  if (!hash) hashes.set(password, (hash = hashPassword(password)));
  return hash;
}

let sequence = 0;
const unique = () => `${Date.now().toString(36)}${(sequence++).toString(36)}`;

export interface AdminOptions {
  loginName?: string;
  email?: string;
  password?: string;
  superUser?: boolean;
  privileges?: Partial<Record<Privilege, boolean>>;
  disabled?: boolean;
}

export async function createAdmin(db: Db, options: AdminOptions = {}) {
  const [row] = await db
    .insert(administrators)
    .values({
      loginName: options.loginName ?? `admin-${unique()}`,
      email: options.email ?? `admin-${unique()}@example.com`,
      passwordHash: await cachedHash(options.password ?? 'correct horse battery'),
      superUser: options.superUser ?? true,
      disabled: options.disabled ?? false,
      ...privilegeColumns(options.privileges ?? {}),
    })
    .returning();
  return row!;
}

/** A session key for the administrator, without going through login. */
export async function createSessionKey(db: Db, administratorId: number, expiresInSeconds = 3600) {
  const key = newSecret();
  const [row] = await db
    .insert(sessions)
    .values({ administratorId, keyHash: hashSecret(key), expiresAt: new Date(Date.now() + expiresInSeconds * 1000) })
    .returning();
  return { key, id: row!.id, headers: { 'php-auth-pw': key } };
}

export async function createSubscriber(db: Db, values: Partial<typeof subscribers.$inferInsert> = {}) {
  const [row] = await db
    .insert(subscribers)
    .values({ email: `sub-${unique()}@example.com`, uniqueId: randomBytes(16).toString('hex'), ...values })
    .returning();
  return row!;
}

export async function createList(db: Db, values: Partial<typeof lists.$inferInsert> = {}) {
  const [row] = await db
    .insert(lists)
    .values({ name: `List ${unique()}`, ...values })
    .returning();
  return row!;
}

let subscriptionClock = Date.now();
/** Subscribes; each call gets a later time than the last, so "subscription order" is what the test wrote. */
export async function subscribe(db: Db, listId: number, subscriberId: number) {
  subscriptionClock = Math.max(subscriptionClock + 1, Date.now());
  await db.insert(subscriptions).values({ listId, subscriberId, createdAt: new Date(subscriptionClock) });
}

/** A campaign (draft unless told otherwise). */
export async function createCampaign(db: Db, values: Partial<typeof campaigns.$inferInsert> = {}) {
  const [row] = await db
    .insert(campaigns)
    .values({ uniqueId: randomBytes(18).toString('hex'), subject: `Campaign ${unique()}`, ...values })
    .returning();
  return row!;
}

/** A delivery record of a campaign to a subscriber (`sent` unless told otherwise). */
export async function createDelivery(db: Db, campaignId: number, subscriberId: number, values: Partial<typeof deliveries.$inferInsert> = {}) {
  const [row] = await db
    .insert(deliveries)
    .values({ campaignId, subscriberId, status: 'sent', sentAt: new Date(), ...values })
    .returning();
  return row!;
}

/** A received bounce, linked to nothing unless told. */
export async function createBounce(db: Db, values: Partial<typeof bounces.$inferInsert> = {}) {
  const [row] = await db.insert(bounces).values(values).returning();
  return row!;
}

/** A tracked link of a campaign, as compose stores them. */
export async function createLink(db: Db, campaignId: number, url: string) {
  const [row] = await db.insert(links).values({ campaignId, url }).returning();
  return row!;
}
