import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { lists } from '../src/db/schema/index.js';
import { superUserSession, type Seed } from './seeds.js';

/*
 * What the sending benches send: an audience seeded with set-based SQL, and the campaign's content (a template, a
 * newsletter body of about 10 KB with personalisation and tracked links, a 40 KB attachment), created through the
 * API by each job so that every job has a campaign of its own.
 */

/** Recipients of the 100k campaign; the two-worker and kill -9 jobs send to the first PAIR_AUDIENCE of them. */
export const AUDIENCE = Number(process.env.BENCH_SEND_RECIPIENTS ?? 100_000);
export const PAIR_AUDIENCE = Math.min(AUDIENCE, Number(process.env.BENCH_SEND_PAIR_RECIPIENTS ?? 50_000));
export const ATTACHMENT_BYTES = 40 * 1024;

export interface SendFixture {
  sessionKey: string;
  /** All AUDIENCE subscribers. */
  fullListId: number;
  /** The first PAIR_AUDIENCE of them. */
  pairListId: number;
}

/** Cities with a non-ASCII one, so that some values take the UTF-8 path of the encoder. */
const CITIES = ['Oslo', 'Zürich', 'Lyon', 'Kraków', 'Porto'];

/**
 * AUDIENCE confirmed subscribers (`send-<n>@bench.invalid`, HTML mail) on one list, the first PAIR_AUDIENCE also on a
 * second, each with two attribute values (`First name`, empty for every tenth so its default shows, and `City`).
 * Five statements; ANALYZE afterwards so the planner knows the sizes.
 */
export const sendAudience: Seed<SendFixture> = {
  name: 'send-audience',
  async run(db, use) {
    const { sessionKey } = await use(superUserSession);
    const [full] = await db.insert(lists).values({ name: 'Bench send (all)' }).returning({ id: lists.id });
    const [pair] = await db.insert(lists).values({ name: 'Bench send (half)' }).returning({ id: lists.id });
    const [range] = await queryRows<{ first: number; last: number; n: number }>(
      db,
      sql`with created as (
            insert into subscribers (email, unique_id, confirmed, html_email)
            select 'send-' || n || '@bench.invalid', md5('bench-send-' || n), true, true
            from generate_series(1, ${AUDIENCE}) as n
            order by n
            returning id)
          select min(id)::int as first, max(id)::int as last, count(*)::int as n from created`,
    );
    if (!range || range.n !== AUDIENCE || range.last - range.first + 1 !== AUDIENCE) {
      throw new Error(`expected ${AUDIENCE} subscribers with consecutive ids, found ${JSON.stringify(range)}`);
    }
    await db.execute(sql`
      insert into subscriptions (list_id, subscriber_id)
      select ${full!.id}::int, id from subscribers where id between ${range.first} and ${range.last}
      union all
      select ${pair!.id}::int, id from subscribers where id between ${range.first} and ${range.first + PAIR_AUDIENCE - 1}`);
    await db.execute(sql`
      insert into attribute_definitions (name, type) values ('First name', 'textline'), ('City', 'textline')
      on conflict do nothing`);
    await db.execute(sql`
      insert into subscriber_attribute_values (subscriber_id, definition_id, value)
      select s.id, d.id,
             case when lower(d.name) = 'city' then (${sql.param(CITIES)}::text[])[1 + s.id % ${CITIES.length}]
                  when s.id % 10 = 0 then ''
                  else 'Reader ' || s.id end
      from subscribers s cross join attribute_definitions d
      where s.id between ${range.first} and ${range.last} and lower(d.name) in ('first name', 'city')`);
    for (const table of ['subscribers', 'subscriptions', 'subscriber_attribute_values']) {
      await db.execute(sql`analyze ${sql.identifier(table)}`);
    }
    return { sessionKey, fullListId: full!.id, pairListId: pair!.id };
  },
};

const STORIES = 8;

export const TEMPLATE = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>[SUBJECT]</title>
<style>body{margin:0;background:#f4f4f4} a{color:#0a66c2}</style></head>
<body><table width="100%" cellpadding="0" cellspacing="0" role="presentation"><tr><td align="center">
<a href="https://www.example.com/"><img src="https://cdn.example.com/logo.png" width="200" height="60" alt="Bench News"></a>
[CONTENT]
<p style="font-size:12px;color:#888">[FOOTER]</p>
</td></tr></table></body></html>`;

/** About 10 KB of HTML: a greeting with placeholders, eight stories each with a tracked link, a shop link. */
export function newsletterBody(): string {
  const story = (i: number) => `
    <tr><td style="padding:16px 24px;font-family:Arial,sans-serif">
      <h2 style="margin:0 0 8px;font-size:20px;color:#222">Story ${i}: what changed this week in the garden</h2>
      <p style="font-size:15px;line-height:22px;color:#444">Dear [FIRST NAME%%reader], this season in [CITY%%your town]
      brought more rain than any spring since records began. Our gardeners tried raised beds, mulch and drip lines;
      the results, with numbers and photographs, are in the full article. Readers who wrote in told us about their
      own tricks &mdash; thank you, and keep them coming.</p>
      <p style="font-size:15px;line-height:22px;color:#444"><a href="https://news.example.com/2026/11/story-${i}?utm_source=newsletter&amp;utm_medium=email">Read the whole story</a>.</p>
    </td></tr>`;
  return `<h1 style="font-family:Arial,sans-serif">Hello [FIRST NAME%%there]!</h1>
    <p>This issue was sent to [EMAIL].</p>
    <table width="600" cellpadding="0" cellspacing="0" role="presentation">${Array.from({ length: STORIES }, (_, i) => story(i + 1)).join('')}</table>
    <p><a href="https://shop.example.com/?ref=newsletter">Our shop</a></p>`;
}

export const SUBJECT = 'Bench News — November';
export const FOOTER = 'You get this because you subscribed. Unsubscribe: [UNSUBSCRIBE]';
export const FROM = 'Bench News <news@bench.invalid>';
export const ATTACHMENT_NAME = 'Seed catalogue 2027.pdf';
