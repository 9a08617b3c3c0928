import { sql, type SQL } from 'drizzle-orm';
import { sqlArray } from '../db/client.js';
import { segmentIndexedValue } from '../db/schema/index.js';
import { emailMatchSql } from '../subscription/index.js';
import type { AttributeCondition, CompareOp, Condition, GroupCondition, LeafCondition } from './segment.definition.js';

/*
 * A checked segment definition → one SQL predicate over `subscribers s`. Every value the client sent travels as a
 * bound parameter; the only SQL text chosen here comes from fixed tables in this file (operators, columns), picked by
 * the checked tree's closed enums, never from the request. Each condition is an EXISTS probe or a column test, so the
 * planner can run a condition as a semi-join over its own index (attribute values by definition and value,
 * memberships by list, engagement and deliveries by subscriber) and AND/OR them.
 *
 * Shaped for the planner at a million subscribers (figures and plans in docs/api.md "Segments"):
 * - One option or one list is an equality, not `= any(array)`: the index range of (definition, value) or (list) is
 *   then read in subscriber order, so a condition merges with the next instead of being hashed or sorted first.
 * - A walk from a subscriber id on (a page, a chunk of a freeze) repeats `> after` inside every probe: the planner
 *   does not carry `s.id > after` across `x.subscriber_id = s.id` itself, and without it a merge over an index in
 *   subscriber order starts at the first subscriber on every page (600 ms at a million instead of 0.2).
 * - "Any campaign" engagement reads subscriber_engagement (one row per subscriber), not every delivery.
 * - A count starts from the index range of a list or an attribute value that every match needs, instead of from
 *   `subscribers`, when no condition reads the subscriber's own row (segmentCountSource).
 */

const COMPARE: Record<CompareOp, SQL> = {
  eq: sql.raw('='),
  ne: sql.raw('<>'),
  gt: sql.raw('>'),
  gte: sql.raw('>='),
  lt: sql.raw('<'),
  lte: sql.raw('<='),
};

/** `%`, `_` and `\` taken literally in a LIKE pattern (the pattern is still a bound parameter). */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Holds for every value the equalities and date ranges below can match (option ids, a checkbox's '1', YYYY-MM-DD
 * dates), and is the predicate of subscriber_attribute_values_segment_idx, so the planner can read that index.
 */
const INDEXED_VALUE = segmentIndexedValue(sql.raw('v.value'));

/**
 * The cut-off of "within the last N days", as a scalar subquery: PostgreSQL computes it once per statement (an
 * InitPlan). Written as a plain expression it is computed again for every index probe (a runtime key) and every row
 * a filter tests: the bench count's 100,000 engagement probes took 173–191 ms of CPU instead of 144, a filter over a
 * million engagement rows 154 ms instead of 82. The plans of the bench's count and page are otherwise unchanged.
 */
const since = (days: number) => sql`(select now() - make_interval(days => ${days}::int))`;

/**
 * `<alias>.subscriber_id = s.id`, and `> after` when the statement walks subscribers from `after` on (redundant for
 * the result, given `s.id > after` outside, but it bounds the index range the planner reads).
 */
type Correlate = (alias: string) => SQL;

function correlation(after: number | null): Correlate {
  return (alias) => {
    const column = sql.raw(`${alias}.subscriber_id`);
    return after === null ? sql`${column} = s.id` : sql`${column} = s.id and ${column} > ${after}::int`;
  };
}

function attribute(c: AttributeCondition, of: Correlate): SQL {
  const has = (predicate: SQL) =>
    sql`exists (select 1 from subscriber_attribute_values v where ${of('v')} and v.definition_id = ${c.attributeId} and ${predicate})`;
  const filled = sql`coalesce(v.value, '') <> ''`;
  if (c.op === 'is_empty') return sql`not ${has(filled)}`;
  if (c.op === 'is_not_empty') return has(filled);
  switch (c.family) {
    case 'checkbox':
      return c.op === 'is_set' ? has(sql`${INDEXED_VALUE} and v.value = '1'`) : sql`not ${has(sql`${INDEXED_VALUE} and v.value = '1'`)}`;
    case 'text':
      switch (c.op) {
        case 'equals':
          return has(sql`lower(v.value) = lower(${c.text})`);
        case 'not_equals':
          return sql`not ${has(sql`lower(v.value) = lower(${c.text})`)}`;
        case 'contains':
          return has(sql`strpos(lower(v.value), lower(${c.text})) > 0`);
        case 'not_contains':
          return sql`not ${has(sql`strpos(lower(v.value), lower(${c.text})) > 0`)}`;
        case 'starts_with':
          return has(sql`starts_with(lower(v.value), lower(${c.text}))`);
      }
      break;
    case 'date': {
      // Dates are stored as YYYY-MM-DD text (attribute-value.rules.ts), which orders like the dates themselves.
      const isDate = sql`char_length(v.value) = 10 and ${INDEXED_VALUE}`;
      switch (c.op) {
        case 'before':
          return has(sql`${isDate} and v.value < ${c.date}`);
        case 'after':
          return has(sql`${isDate} and v.value > ${c.date}`);
        case 'on':
          return has(sql`${INDEXED_VALUE} and v.value = ${c.date}`);
        case 'within_last_days':
          return has(
            sql`${isDate} and v.value >= to_char(current_date - ${c.days}::int, 'YYYY-MM-DD') and v.value <= to_char(current_date, 'YYYY-MM-DD')`,
          );
      }
      break;
    }
    case 'options': {
      const ids = sqlArray(c.optionIds, 'text');
      const any = c.multiple
        ? sql`string_to_array(v.value, ',') && ${ids}`
        : c.optionIds.length === 1
          ? sql`${INDEXED_VALUE} and v.value = ${c.optionIds[0]}`
          : sql`${INDEXED_VALUE} and v.value = any(${ids})`;
      if (c.op === 'any_of') return has(any);
      if (c.op === 'none_of') return sql`not ${has(any)}`;
      if (c.op === 'all_of') return has(sql`string_to_array(v.value, ',') @> ${ids}`);
      break;
    }
  }
  throw new Error(`segment: no SQL for attribute operator ${c.op}`);
}

function engagementColumn(action: 'sent' | 'opened' | 'clicked'): SQL {
  // Opens count only when judged a person's (tracking/machine-detection.ts): a privacy proxy opening every mail is
  // not engagement.
  if (action === 'sent') return sql.raw('d.sent_at');
  if (action === 'opened') return sql.raw('d.first_human_opened_at');
  return sql.raw('d.first_clicked_at');
}

const LATEST: Record<'sent' | 'opened' | 'clicked', SQL> = {
  sent: sql.raw('e.last_sent_at'),
  opened: sql.raw('e.last_opened_at'),
  clicked: sql.raw('e.last_clicked_at'),
};

/**
 * Sent / opened / clicked any campaign (within N days), or never: one row per subscriber in subscriber_engagement,
 * the latest of each time among their deliveries (schema/segments.ts), instead of every delivery of each candidate.
 */
function anyCampaign(action: 'sent' | 'opened' | 'clicked', withinLastDays: number | null, negate: boolean, of: Correlate): SQL {
  const column = LATEST[action];
  const test = withinLastDays === null ? sql`${column} is not null` : sql`${column} >= ${since(withinLastDays)}`;
  const found = sql`exists (select 1 from subscriber_engagement e where ${of('e')} and ${test})`;
  return negate ? sql`not ${found}` : found;
}

function leaf(c: LeafCondition, of: Correlate): SQL {
  switch (c.type) {
    case 'attribute':
      return attribute(c, of);
    case 'email':
      switch (c.op) {
        case 'equals':
          return sql`lower(s.email) = lower(${c.text})`;
        case 'contains':
          return emailMatchSql(`%${likeLiteral(c.text)}%`, c.text);
        case 'not_contains':
          return sql`s.email not ilike ${`%${likeLiteral(c.text)}%`}`;
        case 'domain_is':
          return emailMatchSql(`%@${likeLiteral(c.text)}`, c.text);
        case 'domain_is_not':
          return sql`s.email not ilike ${`%@${likeLiteral(c.text)}`}`;
      }
      break;
    case 'confirmed':
      return sql`s.confirmed = ${c.value}`;
    case 'blacklisted':
      return sql`s.blacklisted = ${c.value}`;
    case 'html_email':
      return sql`s.html_email = ${c.value}`;
    case 'bounce_count':
      return sql`s.bounce_count ${COMPARE[c.op]} ${c.value}`;
    case 'subscribed': {
      const column = c.listId === null ? sql.raw('s.created_at') : sql.raw('m.created_at');
      const test =
        c.op === 'within_last_days'
          ? sql`${column} >= ${since(c.days)}`
          : c.op === 'before'
            ? sql`${column} < ${c.date}::date`
            : sql`${column} >= ${c.date}::date + 1`;
      return c.listId === null ? test : sql`exists (select 1 from subscriptions m where ${of('m')} and m.list_id = ${c.listId} and ${test})`;
    }
    case 'list': {
      const lists = c.listIds.length === 1 ? sql`m.list_id = ${c.listIds[0]}` : sql`m.list_id = any(${sqlArray(c.listIds, 'int')})`;
      const member = sql`exists (select 1 from subscriptions m where ${of('m')} and ${lists})`;
      return c.op === 'member_of' ? member : sql`not ${member}`;
    }
    case 'engagement': {
      if (c.campaignId === null) return anyCampaign(c.action, c.withinLastDays, c.negate, of);
      const column = engagementColumn(c.action);
      const parts = [of('d'), sql`d.campaign_id = ${c.campaignId}`, sql`${column} is not null`];
      if (c.withinLastDays !== null) parts.push(sql`${column} >= ${since(c.withinLastDays)}`);
      const found = sql`exists (select 1 from deliveries d where ${sql.join(parts, sql` and `)})`;
      return c.negate ? sql`not ${found}` : found;
    }
    case 'clicked_link': {
      const parts = [of('k'), sql`not k.machine`, sql`l.url = ${c.url}`];
      if (c.campaignId !== null) parts.push(sql`k.campaign_id = ${c.campaignId}`);
      if (c.withinLastDays !== null) parts.push(sql`k.clicked_at >= ${since(c.withinLastDays)}`);
      const found = sql`exists (select 1 from clicks k join links l on l.id = k.link_id where ${sql.join(parts, sql` and `)})`;
      return c.negate ? sql`not ${found}` : found;
    }
    case 'bounced': {
      const parts = [of('b')];
      if (c.withinLastDays !== null) parts.push(sql`b.received_at >= ${since(c.withinLastDays)}`);
      const found = sql`exists (select 1 from bounces b where ${sql.join(parts, sql` and `)})`;
      return c.negate ? sql`not ${found}` : found;
    }
  }
  throw new Error('segment: unknown condition');
}

function condition(c: Condition, of: Correlate): SQL {
  return c.type === 'group' ? group(c, of) : leaf(c, of);
}

function group(g: GroupCondition, of: Correlate): SQL {
  // An empty group is neutral: all of nothing is true, any of nothing is false.
  if (g.conditions.length === 0) return g.match === 'all' ? sql`true` : sql`false`;
  return sql`(${sql.join(
    g.conditions.map((c) => condition(c, of)),
    g.match === 'all' ? sql` and ` : sql` or `,
  )})`;
}

/**
 * The definition as a predicate over `subscribers s`. `after`: the statement only looks at subscribers with a
 * greater id (it says `s.id > after` itself); the probes are then bounded the same way.
 */
export function segmentPredicate(definition: GroupCondition, after: number | null = null): SQL {
  return group(definition, correlation(after));
}

/** Whether a condition reads the subscriber's own row (e-mail, flags, bounce count, creation time). */
function readsSubscriberRow(c: Condition): boolean {
  switch (c.type) {
    case 'group':
      return c.conditions.some(readsSubscriberRow);
    case 'email':
    case 'confirmed':
    case 'blacklisted':
    case 'html_email':
    case 'bounce_count':
      return true;
    case 'subscribed':
      return c.listId === null;
    default:
      return false;
  }
}

/**
 * The subscribers a condition matches as one index range of a child table holding at most one row per subscriber
 * (a list's memberships: key (list, subscriber); one attribute's values: key (subscriber, definition), the segment
 * values' index (definition, value, subscriber)), or null for any other condition. Every such row names an existing
 * subscriber: deleting a subscriber deletes its memberships and values in the same statement, and inserting one for
 * a missing subscriber fails (routines/012_subscriber_children.sql).
 */
function childRange(c: Condition): SQL | null {
  if (c.type === 'list') {
    return c.op === 'member_of' && c.listIds.length === 1
      ? sql`select m.subscriber_id as id from subscriptions m where m.list_id = ${c.listIds[0]}`
      : null;
  }
  if (c.type !== 'attribute') return null;
  const value = (v: string) =>
    sql`select v.subscriber_id as id from subscriber_attribute_values v where v.definition_id = ${c.attributeId} and ${INDEXED_VALUE} and v.value = ${v}`;
  if (c.family === 'checkbox' && c.op === 'is_set') return value('1');
  if (c.family === 'date' && c.op === 'on') return value(c.date);
  if (c.family === 'options' && !c.multiple && c.op === 'any_of' && c.optionIds.length === 1) return value(c.optionIds[0]!);
  return null;
}

/**
 * A count's rows: `from` (aliased `s`, with the subscriber's `id`) and the predicate over it. When every match must
 * satisfy a condition that is one child index range (a list, one option, a ticked box, a date; see childRange) and
 * no condition reads the subscriber's own row, the count starts from that range instead of `subscribers`, and the
 * other conditions are probed from it. The count is the same (one row per existing subscriber), and the statement
 * no longer visits the subscribers' key once per candidate: at a million, 100,000 probes of 3 buffers each, about
 * 100 ms of a 260 ms count (docs/api.md "Segments"). Which of several such conditions starts makes no measurable
 * difference: the planner orders the joins itself.
 */
export function segmentCountSource(definition: GroupCondition): { from: SQL; predicate: SQL; onSomeList: boolean } {
  const onSomeList = allOnSomeList(definition);
  const everyone = { from: sql`subscribers s`, predicate: segmentPredicate(definition), onSomeList };
  if (definition.match !== 'all' || readsSubscriberRow(definition)) return everyone;
  const start = definition.conditions.findIndex((c) => childRange(c) !== null);
  if (start < 0) return everyone;
  const rest: GroupCondition = { ...definition, conditions: definition.conditions.filter((_, i) => i !== start) };
  return { from: sql`(${childRange(definition.conditions[start]!)}) s`, predicate: segmentPredicate(rest), onSomeList };
}

/**
 * Whether the definition itself puts every match on some list (all of: …, member of a list or subscribed to one):
 * then the consent rule's "on some list" holds for each, and a count need not probe every match's memberships again
 * (the bench's count with its 70,000 matches made mailable: 345 → 258 ms, docs/api.md "Segments").
 */
function allOnSomeList(definition: GroupCondition): boolean {
  return (
    definition.match === 'all' &&
    definition.conditions.some(
      (c) => (c.type === 'list' && c.op === 'member_of' && c.listIds.length > 0) || (c.type === 'subscribed' && c.listId !== null),
    )
  );
}
