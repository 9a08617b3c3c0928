import { and, asc, count, eq, gt, ne, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { administrators } from '../db/schema/index.js';
import { toAtom } from '../shared/time.js';
import type { Administrator, Privilege } from './administrator.schemas.js';

export type AdministratorRow = typeof administrators.$inferSelect;
export type NewAdministratorRow = typeof administrators.$inferInsert;

/** Row → API shape (reference §6.1). */
export function toAdministrator(row: AdministratorRow): Administrator {
  return {
    id: row.id,
    login_name: row.loginName,
    email: row.email,
    super_user: row.superUser,
    privileges: {
      subscribers: row.privSubscribers,
      campaigns: row.privCampaigns,
      statistics: row.privStatistics,
      settings: row.privSettings,
    },
    created_at: toAtom(row.createdAt),
    disabled: row.disabled,
  };
}

/** Privilege flags → the columns that store them (only the flags given). */
export function privilegeColumns(privileges: Partial<Record<Privilege, boolean>>): Partial<NewAdministratorRow> {
  const out: Partial<NewAdministratorRow> = {};
  if (privileges.subscribers !== undefined) out.privSubscribers = privileges.subscribers;
  if (privileges.campaigns !== undefined) out.privCampaigns = privileges.campaigns;
  if (privileges.statistics !== undefined) out.privStatistics = privileges.statistics;
  if (privileges.settings !== undefined) out.privSettings = privileges.settings;
  return out;
}

export async function findAdministrator(db: Executor, id: number): Promise<AdministratorRow | undefined> {
  const [row] = await db.select().from(administrators).where(eq(administrators.id, id));
  return row;
}

export async function findAdministratorByLogin(db: Executor, loginName: string): Promise<AdministratorRow | undefined> {
  const [row] = await db
    .select()
    .from(administrators)
    .where(sql`lower(${administrators.loginName}) = lower(${loginName})`);
  return row;
}

export async function findAdministratorByEmail(db: Executor, email: string): Promise<AdministratorRow | undefined> {
  const [row] = await db
    .select()
    .from(administrators)
    .where(sql`lower(${administrators.email}) = lower(${email})`);
  return row;
}

/** Whether another administrator (not `exceptId`) already uses this login name or e-mail, case-insensitively. */
export async function loginOrEmailTaken(db: Executor, field: 'loginName' | 'email', value: string, exceptId?: number): Promise<boolean> {
  const column = administrators[field];
  const [row] = await db
    .select({ id: administrators.id })
    .from(administrators)
    .where(and(sql`lower(${column}) = lower(${value})`, exceptId ? ne(administrators.id, exceptId) : undefined))
    .limit(1);
  return row !== undefined;
}

export async function listAdministrators(db: Executor, afterId: number, limit: number) {
  const rows = await db.select().from(administrators).where(gt(administrators.id, afterId)).orderBy(asc(administrators.id)).limit(limit);
  const [total] = await db.select({ n: count() }).from(administrators);
  return { rows, total: total?.n ?? 0 };
}

export async function insertAdministrator(db: Executor, values: NewAdministratorRow): Promise<AdministratorRow> {
  const [row] = await db.insert(administrators).values(values).returning();
  return row!;
}

export async function updateAdministrator(db: Executor, id: number, values: Partial<NewAdministratorRow>): Promise<AdministratorRow | undefined> {
  const [row] = await db
    .update(administrators)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(administrators.id, id))
    .returning();
  return row;
}

export async function deleteAdministrator(db: Executor, id: number): Promise<boolean> {
  const rows = await db.delete(administrators).where(eq(administrators.id, id)).returning({ id: administrators.id });
  return rows.length > 0;
}

export async function countAdministrators(db: Executor): Promise<number> {
  const [row] = await db.select({ n: count() }).from(administrators);
  return row?.n ?? 0;
}

/** Whether an enabled super user other than `exceptId` exists. */
export async function anotherSuperUserExists(db: Executor, exceptId: number): Promise<boolean> {
  const others = await db
    .select({ id: administrators.id })
    .from(administrators)
    .where(and(eq(administrators.superUser, true), eq(administrators.disabled, false), ne(administrators.id, exceptId)))
    .limit(1);
  return others.length > 0;
}
