import { sql, type SQL } from 'drizzle-orm';
import { sqlArray } from '../db/client.js';
import type { AttributeCondition, CompareOp, Condition, GroupCondition, LeafCondition } from './segment.definition.js';

/*
 * A checked segment definition → one SQL predicate over `subscribers s`. Every value the client sent travels as a
 * bound parameter; the only SQL text chosen here comes from fixed tables in this file (operators, columns), picked by
 * the checked tree's closed enums, never from the request. Each condition is an EXISTS probe or a column test, so the
 * planner can run a condition as a semi-join over its own index (attribute values by definition, memberships by list,
 * deliveries and clicks by subscriber) and AND/OR them.
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

const since = (days: number) => sql`now() - make_interval(days => ${days}::int)`;

function attribute(c: AttributeCondition): SQL {
  const has = (predicate: SQL) =>
    sql`exists (select 1 from subscriber_attribute_values v where v.subscriber_id = s.id and v.definition_id = ${c.attributeId} and ${predicate})`;
  const filled = sql`coalesce(v.value, '') <> ''`;
  if (c.op === 'is_empty') return sql`not ${has(filled)}`;
  if (c.op === 'is_not_empty') return has(filled);
  switch (c.family) {
    case 'checkbox':
      return c.op === 'is_set' ? has(sql`v.value = '1'`) : sql`not ${has(sql`v.value = '1'`)}`;
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
      const isDate = sql`char_length(v.value) = 10`;
      switch (c.op) {
        case 'before':
          return has(sql`${isDate} and v.value < ${c.date}`);
        case 'after':
          return has(sql`${isDate} and v.value > ${c.date}`);
        case 'on':
          return has(sql`v.value = ${c.date}`);
        case 'within_last_days':
          return has(
            sql`${isDate} and v.value >= to_char(current_date - ${c.days}::int, 'YYYY-MM-DD') and v.value <= to_char(current_date, 'YYYY-MM-DD')`,
          );
      }
      break;
    }
    case 'options': {
      const ids = sqlArray(c.optionIds, 'text');
      const any = c.multiple ? sql`string_to_array(v.value, ',') && ${ids}` : sql`v.value = any(${ids})`;
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

function leaf(c: LeafCondition): SQL {
  switch (c.type) {
    case 'attribute':
      return attribute(c);
    case 'email':
      switch (c.op) {
        case 'equals':
          return sql`lower(s.email) = lower(${c.text})`;
        case 'contains':
          return sql`s.email ilike ${`%${likeLiteral(c.text)}%`}`;
        case 'not_contains':
          return sql`s.email not ilike ${`%${likeLiteral(c.text)}%`}`;
        case 'domain_is':
          return sql`s.email ilike ${`%@${likeLiteral(c.text)}`}`;
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
      return c.listId === null
        ? test
        : sql`exists (select 1 from subscriptions m where m.subscriber_id = s.id and m.list_id = ${c.listId} and ${test})`;
    }
    case 'list': {
      const member = sql`exists (select 1 from subscriptions m where m.subscriber_id = s.id and m.list_id = any(${sqlArray(c.listIds, 'int')}))`;
      return c.op === 'member_of' ? member : sql`not ${member}`;
    }
    case 'engagement': {
      const column = engagementColumn(c.action);
      const parts = [sql`d.subscriber_id = s.id`, sql`${column} is not null`];
      if (c.campaignId !== null) parts.push(sql`d.campaign_id = ${c.campaignId}`);
      if (c.withinLastDays !== null) parts.push(sql`${column} >= ${since(c.withinLastDays)}`);
      const found = sql`exists (select 1 from deliveries d where ${sql.join(parts, sql` and `)})`;
      return c.negate ? sql`not ${found}` : found;
    }
    case 'clicked_link': {
      const parts = [sql`k.subscriber_id = s.id`, sql`not k.machine`, sql`l.url = ${c.url}`];
      if (c.campaignId !== null) parts.push(sql`k.campaign_id = ${c.campaignId}`);
      if (c.withinLastDays !== null) parts.push(sql`k.clicked_at >= ${since(c.withinLastDays)}`);
      const found = sql`exists (select 1 from clicks k join links l on l.id = k.link_id where ${sql.join(parts, sql` and `)})`;
      return c.negate ? sql`not ${found}` : found;
    }
    case 'bounced': {
      const parts = [sql`b.subscriber_id = s.id`];
      if (c.withinLastDays !== null) parts.push(sql`b.received_at >= ${since(c.withinLastDays)}`);
      const found = sql`exists (select 1 from bounces b where ${sql.join(parts, sql` and `)})`;
      return c.negate ? sql`not ${found}` : found;
    }
  }
  throw new Error('segment: unknown condition');
}

function condition(c: Condition): SQL {
  return c.type === 'group' ? group(c) : leaf(c);
}

function group(g: GroupCondition): SQL {
  // An empty group is neutral: all of nothing is true, any of nothing is false.
  if (g.conditions.length === 0) return g.match === 'all' ? sql`true` : sql`false`;
  return sql`(${sql.join(g.conditions.map(condition), g.match === 'all' ? sql` and ` : sql` or `)})`;
}

/** The definition as a predicate over `subscribers s`. */
export function segmentPredicate(definition: GroupCondition): SQL {
  return group(definition);
}
