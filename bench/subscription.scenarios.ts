import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { lists, subscribers, subscriptions } from '../src/db/schema/index.js';
import { randomBetween, scenario, withSession, type Scenario } from './scenario.js';
import { superUserSession, type Seed } from './seeds.js';

export const MILLION = 1_000_000;

/**
 * 1,000,000 subscribers, all members of one list, consecutive ids. Two statements (generate_series), so seeding
 * takes seconds, not the hours a row-by-row insert would; ANALYZE afterwards so the planner knows the sizes.
 */
export const millionMembers: Seed<{ sessionKey: string; listId: number; firstId: number; lastId: number }> = {
  name: 'subscribers-1m-one-list',
  async run(db, use) {
    const { sessionKey } = await use(superUserSession);
    const [list] = await db.insert(lists).values({ name: 'Bench million', isPublic: true }).returning({ id: lists.id });
    const listId = list!.id;
    await db.execute(sql`
      insert into ${subscribers} (email, unique_id, confirmed)
      select 'bench-sub-' || n || '@mailroom.invalid', md5('bench-sub-' || n), n % 10 <> 0
      from generate_series(1, ${MILLION}) as n`);
    await db.execute(sql`
      insert into ${subscriptions} (list_id, subscriber_id)
      select ${listId}, id from ${subscribers} where email like 'bench-sub-%@mailroom.invalid'`);
    await db.execute(sql`analyze ${subscribers}`);
    await db.execute(sql`analyze ${subscriptions}`);
    const [range] = await queryRows<{ first_id: number; last_id: number; total: number }>(
      db,
      sql`select min(id)::int as first_id, max(id)::int as last_id, count(*)::int as total from ${subscribers}
          where email like 'bench-sub-%@mailroom.invalid'`,
    );
    if (!range || range.total !== MILLION || range.last_id - range.first_id + 1 !== MILLION) {
      throw new Error(`expected ${MILLION} subscribers with consecutive ids, found ${JSON.stringify(range)}`);
    }
    return { sessionKey, listId, firstId: range.first_id, lastId: range.last_id };
  },
};

const ADD_BATCHES = 20;
const ADD_BATCH_SIZE = 1000; // the most POST /lists/{id}/subscribers takes at once
const addAddress = (batch: number, i: number) => `bench-add-${batch}-${i}@mailroom.invalid`;

/**
 * An empty list owned by nobody and the 20,000 subscribers the job adds to it (adding members takes existing
 * subscribers only: an unknown address is a 404, as in phpList). One generate_series statement.
 */
export const emptyListAndSubscribers: Seed<{ listId: number }> = {
  name: 'empty-list-20k-subscribers',
  async run(db) {
    const [list] = await db.insert(lists).values({ name: 'Bench empty', isPublic: true }).returning({ id: lists.id });
    await db.execute(sql`
      insert into ${subscribers} (email, unique_id, confirmed, html_email)
      select 'bench-add-' || b || '-' || i || '@mailroom.invalid', md5('bench-add-' || b || '-' || i), false, false
      from generate_series(0, ${ADD_BATCHES - 1}) as b cross join generate_series(0, ${ADD_BATCH_SIZE - 1}) as i
      on conflict do nothing`);
    return { listId: list!.id };
  },
};

/** The subscription area's bench scenarios (load or job; see ./scenario.ts), gathered by ./scenarios.ts. */
export const subscriptionScenarios: readonly Scenario[] = [
  scenario({
    name: 'list-count',
    seed: millionMembers,
    requests: ({ sessionKey, listId }) => [{ method: 'GET', path: `/api/v2/lists/${listId}/subscribers/count`, headers: withSession(sessionKey) }],
  }),
  scenario({
    name: 'list-members-deep-pages',
    seed: millionMembers,
    requests: ({ sessionKey, listId, firstId, lastId }) => [
      {
        method: 'GET',
        path: `/api/v2/lists/${listId}/subscribers?after_id=${firstId}`,
        headers: withSession(sessionKey),
        // A page anywhere in the million on each request, so no part of the index stays hot.
        setupRequest: (request) => ({
          ...request,
          path: `/api/v2/lists/${listId}/subscribers?after_id=${randomBetween(firstId, lastId)}`,
        }),
      },
    ],
  }),
  scenario({
    name: 'subscribers-deep-pages',
    seed: millionMembers,
    requests: ({ sessionKey, firstId, lastId }) => [
      {
        method: 'GET',
        path: `/api/v2/subscribers?after_id=${firstId}`,
        headers: withSession(sessionKey),
        setupRequest: (request) => ({ ...request, path: `/api/v2/subscribers?after_id=${randomBetween(firstId, lastId)}` }),
      },
    ],
  }),
  scenario({
    // 20,000 subscribers added to a list through the API, 1,000 per request, one request at a time (as a script would).
    name: 'list-members-add-20k',
    seed: emptyListAndSubscribers,
    async job({ listId }, { baseUrl, sessionKey }) {
      const started = performance.now();
      let slowest = 0;
      for (let batch = 0; batch < ADD_BATCHES; batch++) {
        const emails = Array.from({ length: ADD_BATCH_SIZE }, (_, i) => addAddress(batch, i));
        const t0 = performance.now();
        const res = await fetch(`${baseUrl}/api/v2/lists/${listId}/subscribers`, {
          method: 'POST',
          headers: { ...withSession(sessionKey), 'content-type': 'application/json' },
          body: JSON.stringify({ emails, auto_confirm: true }),
        });
        if (res.status !== 201) throw new Error(`POST answered ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
        slowest = Math.max(slowest, performance.now() - t0);
      }
      const seconds = (performance.now() - started) / 1000;
      const count = await fetch(`${baseUrl}/api/v2/lists/${listId}/subscribers/count`, { headers: withSession(sessionKey) });
      const { subscribers_count } = (await count.json()) as { subscribers_count: number };
      return {
        members_added_per_s: Math.round((ADD_BATCHES * ADD_BATCH_SIZE) / seconds),
        slowest_request_ms: Math.round(slowest),
        members_counted: subscribers_count,
      };
    },
  }),
];
