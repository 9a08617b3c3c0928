import { sql } from 'drizzle-orm';
import { lists, subscribers } from '../src/db/schema/index.js';
import { scenario, withSession, type Scenario } from './scenario.js';
import type { Seed } from './seeds.js';

const BULK_SUBSCRIBERS = 100_000;
const DOMAIN = '@bulk.invalid';

/** 100,000 confirmed subscribers at one domain (what the filter selects) and an empty list owned by nobody. */
const hundredThousand: Seed<{ listId: number }> = {
  name: 'bulk-100k-subscribers',
  async run(db) {
    const [list] = await db.insert(lists).values({ name: 'Bench bulk', isPublic: true }).returning({ id: lists.id });
    await db.execute(sql`
      insert into ${subscribers} (email, unique_id, confirmed)
      select 'bulk-' || n || ${DOMAIN}, md5('bulk-' || n), true from generate_series(1, ${BULK_SUBSCRIBERS}) as n`);
    await db.execute(sql`analyze ${subscribers}`);
    return { listId: list!.id };
  },
};

/**
 * The console's "All 100,000 matching" → add to a list, export, blacklist, delete: each a bulk request over the
 * list view's filter, polled to its end as the console polls (every 250 ms). Figures: seconds per action.
 */
export const subscriberBulkScenarios: readonly Scenario[] = [
  scenario({
    name: 'subscribers-bulk-100k',
    seed: hundredThousand,
    async job({ listId }, { baseUrl, sessionKey }) {
      const headers = { ...withSession(sessionKey), 'content-type': 'application/json' };
      const filter = { find_column: 'email', find_value: DOMAIN };
      const figures: Record<string, number> = {};
      async function run(name: string, body: object): Promise<void> {
        const started = performance.now();
        const res = await fetch(`${baseUrl}/api/v2/subscribers/bulk`, { method: 'POST', headers, body: JSON.stringify(body) });
        if (res.status !== 202) throw new Error(`${name}: POST answered ${res.status}: ${await res.text()}`);
        const { id } = (await res.json()) as { id: number };
        for (;;) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          const job = (await (await fetch(`${baseUrl}/api/v2/bulk-jobs/${id}`, { headers })).json()) as {
            state: string;
            done: number;
            affected: number;
          };
          if (job.state === 'running') continue;
          if (job.state !== 'done' || job.done !== BULK_SUBSCRIBERS) throw new Error(`${name}: ${JSON.stringify(job)}`);
          figures[`${name}_s`] = Math.round((performance.now() - started) / 100) / 10;
          figures[`${name}_affected`] = job.affected;
          return;
        }
      }
      await run('add_to_list', { action: 'add_to_list', filter, list_id: listId });
      const count = await fetch(`${baseUrl}/api/v2/lists/${listId}/subscribers/count`, { headers });
      figures.members_counted = ((await count.json()) as { subscribers_count: number }).subscribers_count;

      const started = performance.now();
      const csv = await fetch(`${baseUrl}/api/v2/subscribers/bulk/export`, { method: 'POST', headers, body: JSON.stringify({ filter }) });
      if (csv.status !== 200) throw new Error(`export answered ${csv.status}`);
      const text = await csv.text();
      figures.export_s = Math.round((performance.now() - started) / 100) / 10;
      figures.export_rows = text.split('\r\n').length - 2;

      await run('blacklist', { action: 'blacklist', filter, reason: 'bench' });
      await run('delete', { action: 'delete', filter });
      const left = await fetch(`${baseUrl}/api/v2/lists/${listId}/subscribers/count`, { headers });
      figures.members_after_delete = ((await left.json()) as { subscribers_count: number }).subscribers_count;
      return figures;
    },
  }),
];
