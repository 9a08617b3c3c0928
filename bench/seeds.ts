import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../src/db/client.js';
import { administrators, sessions } from '../src/db/schema/index.js';
import { hashPassword } from '../src/identity/password.js';
import { hashSecret, newSecret } from '../src/identity/tokens.js';

/**
 * A seed step: puts rows in the bench database before the service starts and returns what the requests need
 * (ids, a session key). What it returns crosses to the driver process as JSON, so it must be plain data.
 * `use` runs another seed first; each seed runs once per bench run, however many scenarios name it.
 */
export interface Seed<T> {
  readonly name: string;
  run(db: Db, use: <U>(seed: Seed<U>) => Promise<U>): Promise<T>;
}

/** The password every seeded administrator has; logins are not what is measured, so one scrypt hash serves all. */
export const BENCH_PASSWORD = 'bench-password';

let sharedHash: Promise<string> | undefined;
function benchPasswordHash(): Promise<string> {
  sharedHash ??= hashPassword(BENCH_PASSWORD);
  return sharedHash;
}

/** A super user and a live session whose key the bench knows. */
export const superUserSession: Seed<{ sessionKey: string; administratorId: number }> = {
  name: 'super-user-session',
  async run(db) {
    const [admin] = await db
      .insert(administrators)
      .values({
        loginName: 'bench-super',
        email: 'bench-super@mailroom.invalid',
        passwordHash: await benchPasswordHash(),
        superUser: true,
        privSubscribers: true,
        privCampaigns: true,
        privStatistics: true,
        privSettings: true,
        passwordChangedAt: new Date(),
      })
      .returning({ id: administrators.id });
    const sessionKey = newSecret();
    // A day is longer than any bench run; SESSION_TTL only applies to sessions made by logging in.
    await db.insert(sessions).values({
      administratorId: admin!.id,
      keyHash: hashSecret(sessionKey),
      expiresAt: new Date(Date.now() + 86_400_000),
    });
    return { sessionKey, administratorId: admin!.id };
  },
};

export const ADMINISTRATOR_COUNT = 10_000;

/** 10,000 administrators, the bench super user among them, with consecutive ids. */
export const tenThousandAdministrators: Seed<{ sessionKey: string; firstId: number; lastId: number }> = {
  name: 'administrators-10k',
  async run(db, use) {
    const { sessionKey } = await use(superUserSession);
    const hash = await benchPasswordHash();
    // One statement for the lot: a row-by-row insert would take longer than the measurement itself.
    await db.execute(sql`
      insert into ${administrators} (login_name, email, password_hash, priv_subscribers, priv_campaigns)
      select 'bench-admin-' || n, 'bench-admin-' || n || '@mailroom.invalid', ${hash}, n % 2 = 0, n % 3 = 0
      from generate_series(1, ${ADMINISTRATOR_COUNT - 1}) as n`);
    const [range] = await queryRows<{ first_id: number; last_id: number; total: number }>(
      db,
      sql`select min(id)::int as first_id, max(id)::int as last_id, count(*)::int as total from ${administrators}`,
    );
    if (!range || range.total !== ADMINISTRATOR_COUNT || range.last_id - range.first_id + 1 !== range.total) {
      throw new Error(`expected ${ADMINISTRATOR_COUNT} administrators with consecutive ids, found ${JSON.stringify(range)}`);
    }
    return { sessionKey, firstId: range.first_id, lastId: range.last_id };
  },
};
