import { emailMatchText } from './email-search.repository.js';
import type { AttributeMatch } from './subscriber.schemas.js';

/*
 * The one filter over subscribers: what the list view shows (`GET /subscribers`) is what a bulk action over "every
 * match" acts on. SubscriberFilterQuery (subscriber.schemas.ts) is its wire form, `filterOf` (subscriber.service.ts)
 * checks it into a SubscriberFilter, and `filterConditions` below is its only SQL.
 */

export interface SubscriberFilter {
  confirmed?: boolean;
  blacklisted?: boolean;
  find?: { column: 'email' | 'foreignKey' | 'uniqueId'; value: string };
  /** Only members of this list. */
  listId?: number;
  /** Only subscribers whose value of this attribute matches. */
  attribute?: { definitionId: number; value: string; match: AttributeMatch };
}

/** The searchable columns by their filter name; never taken from the request as text. */
const FIND_COLUMNS: Record<NonNullable<SubscriberFilter['find']>['column'], string> = {
  email: 'email',
  foreignKey: 'foreign_key',
  uniqueId: 'unique_id',
};

/** `%`, `_` and `\` match themselves in a "contains" search. */
const likeContains = (value: string) => `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export interface FilterSql {
  /** The conditions on `s` (subscribers), ANDed; '' when there are none. */
  where: string;
  /** Names which conditions there are (not their values), for naming prepared statements. */
  shape: string;
}

/**
 * The filter (all but `listId`, which callers drive from the list's memberships) as SQL conditions on `s`, the
 * values pushed onto `values` and referenced as `$n`.
 *
 * The attribute condition matches the stored value, or, for option attributes (stored as option ids), the name of
 * one of the options: "Country contains ger" finds subscribers whose Country is the option "Germany".
 */
export function filterConditions(filter: SubscriberFilter, values: unknown[]): FilterSql {
  const conditions: string[] = [];
  const shape: string[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (filter.confirmed !== undefined) {
    conditions.push(`s.confirmed = ${param(filter.confirmed)}`);
    shape.push('c');
  }
  if (filter.blacklisted !== undefined) {
    conditions.push(`s.blacklisted = ${param(filter.blacklisted)}`);
    shape.push('b');
  }
  if (filter.find) {
    const column = FIND_COLUMNS[filter.find.column];
    const pattern = param(likeContains(filter.find.value));
    // The e-mail search goes through its trigram index (email-search.repository.ts).
    const match = column === 'email' ? emailMatchText(pattern, filter.find.value) : null;
    conditions.push(match?.text ?? `s.${column} ilike ${pattern}`);
    shape.push(match?.indexed ? `f${column}_indexed` : `f${column}`);
  }
  if (filter.attribute) {
    const { definitionId, value, match } = filter.attribute;
    const definition = param(definitionId);
    const pattern = param(match === 'equals' ? value.replace(/[\\%_]/g, (c) => `\\${c}`) : likeContains(value));
    conditions.push(`exists (
      select 1 from subscriber_attribute_values v
      where v.subscriber_id = s.id and v.definition_id = ${definition}
        and (v.value ilike ${pattern}
             or v.value in (select o.id::text from attribute_options o where o.definition_id = ${definition} and o.name ilike ${pattern})))`);
    shape.push(`a${match}`);
  }
  return { where: conditions.join(' and '), shape: shape.join('_') };
}
