import { OPTION_TYPES } from '../subscription/index.js';

/*
 * A segment's definition: a tree of AND/OR groups of typed conditions (docs/api.md "Segments"). This module is the
 * one place that knows which operator fits which condition and attribute type; it turns the JSON a client sent into
 * a checked tree, or into errors naming the path of each bad condition (`definition.conditions[1].value`). Nothing
 * here touches SQL: segment.compile.ts turns a checked tree into a parameterised predicate.
 */

export const MAX_DEPTH = 5;
export const MAX_CONDITIONS = 100;
const MAX_TEXT = 1_000;
const MAX_ITEMS = 1_000;
const MAX_DAYS = 36_500;

export type Match = 'all' | 'any';

export interface GroupCondition {
  readonly type: 'group';
  readonly match: Match;
  readonly conditions: readonly Condition[];
}

export type TextOp = 'equals' | 'not_equals' | 'contains' | 'not_contains' | 'starts_with' | 'is_empty' | 'is_not_empty';
export type DateOp = 'before' | 'after' | 'on' | 'within_last_days' | 'is_empty' | 'is_not_empty';
export type CheckboxOp = 'is_set' | 'is_not_set';
export type OptionOp = 'any_of' | 'none_of' | 'all_of' | 'is_empty' | 'is_not_empty';

/** An attribute condition, checked against the attribute's type; option values resolved to option ids. */
export type AttributeCondition =
  | { readonly type: 'attribute'; readonly family: 'text'; readonly attributeId: number; readonly op: TextOp; readonly text: string }
  | {
      readonly type: 'attribute';
      readonly family: 'date';
      readonly attributeId: number;
      readonly op: DateOp;
      readonly date: string;
      readonly days: number;
    }
  | { readonly type: 'attribute'; readonly family: 'checkbox'; readonly attributeId: number; readonly op: CheckboxOp }
  | {
      readonly type: 'attribute';
      readonly family: 'options';
      readonly attributeId: number;
      readonly op: OptionOp;
      /** checkboxgroup values hold several ids, comma-separated. */
      readonly multiple: boolean;
      readonly optionIds: readonly string[];
    };

export type EmailOp = 'equals' | 'contains' | 'not_contains' | 'domain_is' | 'domain_is_not';
export type CompareOp = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte';
export type EngagementAction = 'sent' | 'opened' | 'clicked';

export type LeafCondition =
  | AttributeCondition
  | { readonly type: 'email'; readonly op: EmailOp; readonly text: string }
  | { readonly type: 'confirmed' | 'blacklisted' | 'html_email'; readonly value: boolean }
  | { readonly type: 'bounce_count'; readonly op: CompareOp; readonly value: number }
  | {
      readonly type: 'subscribed';
      readonly listId: number | null;
      readonly op: 'before' | 'after' | 'within_last_days';
      readonly date: string;
      readonly days: number;
    }
  | { readonly type: 'list'; readonly op: 'member_of' | 'not_member_of'; readonly listIds: readonly number[] }
  | {
      readonly type: 'engagement';
      readonly action: EngagementAction;
      readonly campaignId: number | null;
      readonly withinLastDays: number | null;
      readonly negate: boolean;
    }
  | {
      readonly type: 'clicked_link';
      readonly url: string;
      readonly campaignId: number | null;
      readonly withinLastDays: number | null;
      readonly negate: boolean;
    }
  | { readonly type: 'bounced'; readonly withinLastDays: number | null; readonly negate: boolean };

export type Condition = GroupCondition | LeafCondition;

/** What the checker needs to know of the database: attribute definitions (with options), and which ids exist. */
export interface SegmentVocabulary {
  readonly attributes: ReadonlyMap<
    number,
    { readonly name: string; readonly type: string; readonly options: readonly { id: number; name: string }[] }
  >;
  readonly listIds: ReadonlySet<number>;
}

export type Checked = { ok: true; definition: GroupCondition } | { ok: false; errors: Record<string, string[]> };

const TEXT_OPS: readonly TextOp[] = ['equals', 'not_equals', 'contains', 'not_contains', 'starts_with', 'is_empty', 'is_not_empty'];
const DATE_OPS: readonly DateOp[] = ['before', 'after', 'on', 'within_last_days', 'is_empty', 'is_not_empty'];
const CHECKBOX_OPS: readonly CheckboxOp[] = ['is_set', 'is_not_set'];
const OPTION_OPS: readonly OptionOp[] = ['any_of', 'none_of', 'is_empty', 'is_not_empty'];
const GROUP_OPTION_OPS: readonly OptionOp[] = [...OPTION_OPS, 'all_of'];
const EMAIL_OPS: readonly EmailOp[] = ['equals', 'contains', 'not_contains', 'domain_is', 'domain_is_not'];
const COMPARE_OPS: readonly CompareOp[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'];
const SUBSCRIBED_OPS = ['before', 'after', 'within_last_days'] as const;
const LEAF_TYPES = [
  'attribute',
  'email',
  'confirmed',
  'blacklisted',
  'html_email',
  'bounce_count',
  'subscribed',
  'list',
  'engagement',
  'clicked_link',
  'bounced',
];

/** Thrown inside the walk; collected into the error map by checkDefinition. */
class Bad extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (items: readonly string[]) => items.join(', ');

function oneOf<T extends string>(path: string, value: unknown, allowed: readonly T[], what: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new Bad(
      path,
      value === undefined
        ? `The ${what} is missing (one of ${list(allowed)}).`
        : `"${String(value)}" is not a ${what} here; use one of ${list(allowed)}.`,
    );
  }
  return value as T;
}

function text(path: string, value: unknown, what = 'value'): string {
  if (typeof value !== 'string' && typeof value !== 'number') throw new Bad(path, `The ${what} is missing or not text.`);
  const s = String(value);
  if (s.length > MAX_TEXT) throw new Bad(path, `The ${what} is longer than ${MAX_TEXT} characters.`);
  if (s.includes('\u0000')) throw new Bad(path, `The ${what} contains a NUL character.`);
  return s;
}

function nonEmptyText(path: string, value: unknown, what = 'value'): string {
  const s = text(path, value, what);
  if (s.trim() === '') throw new Bad(path, `The ${what} must not be empty.`);
  return s;
}

function day(path: string, value: unknown): string {
  const s = typeof value === 'string' ? value.trim() : '';
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  const date = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
  if (!m || !date || date.getUTCDate() !== Number(m[3]) || date.getUTCMonth() !== Number(m[2]) - 1) {
    throw new Bad(path, value === undefined ? 'The date is missing (YYYY-MM-DD).' : `"${String(value)}" is not a date (YYYY-MM-DD).`);
  }
  return s;
}

function positive(path: string, value: unknown, max: number, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new Bad(path, value === undefined ? `The ${what} is missing.` : `The ${what} must be a whole number from 1 to ${max}.`);
  }
  return value;
}

function whole(path: string, value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 2_147_483_647) {
    throw new Bad(path, value === undefined ? `The ${what} is missing.` : `The ${what} must be a whole number of 0 or more.`);
  }
  return value;
}

function optionalDays(path: string, value: unknown): number | null {
  return value === undefined || value === null ? null : positive(path, value, MAX_DAYS, 'number of days');
}

function optionalId(path: string, value: unknown, what: string): number | null {
  return value === undefined || value === null ? null : positive(path, value, 2_147_483_647, what);
}

function bool(path: string, value: unknown, fallback?: boolean): boolean {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'boolean')
    throw new Bad(path, value === undefined ? 'The value is missing (true or false).' : 'The value must be true or false.');
  return value;
}

function attributeCondition(path: string, c: Record<string, unknown>, vocabulary: SegmentVocabulary): AttributeCondition {
  const attributeId = positive(`${path}.attribute_id`, c.attribute_id, 2_147_483_647, 'attribute id');
  const attribute = vocabulary.attributes.get(attributeId);
  if (!attribute) throw new Bad(`${path}.attribute_id`, `There is no attribute with id ${attributeId}.`);
  const type = attribute.type.toLowerCase();
  const fits = (ops: readonly string[]) => `"${String(c.op)}" does not fit the ${type} attribute "${attribute.name}"; use one of ${list(ops)}.`;
  const op = (ops: readonly string[]) => {
    if (typeof c.op !== 'string' || !ops.includes(c.op))
      throw new Bad(`${path}.op`, c.op === undefined ? `The operator is missing (one of ${list(ops)}).` : fits(ops));
    return c.op;
  };
  if (type === 'checkbox') return { type: 'attribute', family: 'checkbox', attributeId, op: op(CHECKBOX_OPS) as CheckboxOp };
  if (OPTION_TYPES.has(type)) {
    const multiple = type === 'checkboxgroup';
    const chosen = op(multiple ? GROUP_OPTION_OPS : OPTION_OPS) as OptionOp;
    if (chosen === 'is_empty' || chosen === 'is_not_empty')
      return { type: 'attribute', family: 'options', attributeId, op: chosen, multiple, optionIds: [] };
    const raw = Array.isArray(c.value) ? c.value : c.value === undefined ? undefined : [c.value];
    if (!raw || raw.length === 0) throw new Bad(`${path}.value`, `The options are missing: a list of option ids or names of "${attribute.name}".`);
    if (raw.length > MAX_ITEMS) throw new Bad(`${path}.value`, `At most ${MAX_ITEMS} options.`);
    const optionIds = raw.map((item, i) => {
      const name = text(`${path}.value[${i}]`, item, 'option');
      const found =
        attribute.options.find((o) => String(o.id) === name.trim()) ??
        attribute.options.find((o) => o.name.toLowerCase() === name.trim().toLowerCase());
      if (!found)
        throw new Bad(
          `${path}.value[${i}]`,
          `"${name}" is not an option of "${attribute.name}" (${list(attribute.options.map((o) => o.name)) || 'none defined'}).`,
        );
      return String(found.id);
    });
    return { type: 'attribute', family: 'options', attributeId, op: chosen, multiple, optionIds: [...new Set(optionIds)] };
  }
  if (type === 'date') {
    const chosen = op(DATE_OPS) as DateOp;
    if (chosen === 'within_last_days')
      return {
        type: 'attribute',
        family: 'date',
        attributeId,
        op: chosen,
        date: '',
        days: positive(`${path}.value`, c.value, MAX_DAYS, 'number of days'),
      };
    if (chosen === 'is_empty' || chosen === 'is_not_empty') return { type: 'attribute', family: 'date', attributeId, op: chosen, date: '', days: 0 };
    return { type: 'attribute', family: 'date', attributeId, op: chosen, date: day(`${path}.value`, c.value), days: 0 };
  }
  const chosen = op(TEXT_OPS) as TextOp;
  if (chosen === 'is_empty' || chosen === 'is_not_empty') return { type: 'attribute', family: 'text', attributeId, op: chosen, text: '' };
  const value = chosen === 'equals' || chosen === 'not_equals' ? text(`${path}.value`, c.value) : nonEmptyText(`${path}.value`, c.value);
  return { type: 'attribute', family: 'text', attributeId, op: chosen, text: value };
}

function leaf(path: string, c: Record<string, unknown>, vocabulary: SegmentVocabulary): LeafCondition {
  const type = oneOf(`${path}.type`, c.type, [...LEAF_TYPES, 'group'], 'condition type');
  switch (type) {
    case 'attribute':
      return attributeCondition(path, c, vocabulary);
    case 'email': {
      const op = oneOf(`${path}.op`, c.op, EMAIL_OPS, 'operator');
      const value = nonEmptyText(`${path}.value`, c.value);
      if ((op === 'domain_is' || op === 'domain_is_not') && value.includes('@'))
        throw new Bad(`${path}.value`, 'A domain is the part after the @, without it.');
      return { type: 'email', op, text: value.trim() };
    }
    case 'confirmed':
    case 'blacklisted':
    case 'html_email':
      return { type, value: bool(`${path}.value`, c.value) };
    case 'bounce_count':
      return { type, op: oneOf(`${path}.op`, c.op, COMPARE_OPS, 'operator'), value: whole(`${path}.value`, c.value, 'bounce count') };
    case 'subscribed': {
      const op = oneOf(`${path}.op`, c.op, SUBSCRIBED_OPS, 'operator');
      const listId = optionalId(`${path}.list_id`, c.list_id, 'list id');
      if (listId !== null && !vocabulary.listIds.has(listId)) throw new Bad(`${path}.list_id`, `There is no list with id ${listId}.`);
      if (op === 'within_last_days') return { type, op, listId, date: '', days: positive(`${path}.value`, c.value, MAX_DAYS, 'number of days') };
      return { type, op, listId, date: day(`${path}.value`, c.value), days: 0 };
    }
    case 'list': {
      const op = oneOf(`${path}.op`, c.op, ['member_of', 'not_member_of'] as const, 'operator');
      if (!Array.isArray(c.list_ids) || c.list_ids.length === 0) throw new Bad(`${path}.list_ids`, 'The lists are missing: a list of list ids.');
      if (c.list_ids.length > MAX_ITEMS) throw new Bad(`${path}.list_ids`, `At most ${MAX_ITEMS} lists.`);
      const listIds = c.list_ids.map((id, i) => {
        const n = positive(`${path}.list_ids[${i}]`, id, 2_147_483_647, 'list id');
        if (!vocabulary.listIds.has(n)) throw new Bad(`${path}.list_ids[${i}]`, `There is no list with id ${n}.`);
        return n;
      });
      return { type, op, listIds: [...new Set(listIds)] };
    }
    case 'engagement':
      return {
        type,
        action: oneOf(`${path}.action`, c.action, ['sent', 'opened', 'clicked'] as const, 'action'),
        campaignId: optionalId(`${path}.campaign_id`, c.campaign_id, 'campaign id'),
        withinLastDays: optionalDays(`${path}.within_last_days`, c.within_last_days),
        negate: bool(`${path}.negate`, c.negate, false),
      };
    case 'clicked_link':
      return {
        type,
        url: nonEmptyText(`${path}.url`, c.url, 'link'),
        campaignId: optionalId(`${path}.campaign_id`, c.campaign_id, 'campaign id'),
        withinLastDays: optionalDays(`${path}.within_last_days`, c.within_last_days),
        negate: bool(`${path}.negate`, c.negate, false),
      };
    case 'bounced':
      return { type, withinLastDays: optionalDays(`${path}.within_last_days`, c.within_last_days), negate: bool(`${path}.negate`, c.negate, false) };
    default:
      throw new Bad(`${path}.type`, 'A group needs "match" and "conditions".');
  }
}

/**
 * Checks a definition sent by a client. The top level is a group (`{"match":"all","conditions":[…]}`, `type` may be
 * left out there); every error found is reported, each under the path of its condition.
 */
export function checkDefinition(input: unknown, vocabulary: SegmentVocabulary, root = 'definition'): Checked {
  const errors: Record<string, string[]> = {};
  let conditions = 0;
  const note = (e: unknown) => {
    if (!(e instanceof Bad)) throw e;
    (errors[e.path] ??= []).push(e.message);
  };
  const group = (path: string, value: unknown, depth: number): GroupCondition => {
    if (!isObject(value)) throw new Bad(path, 'A group must be an object with "match" and "conditions".');
    if (value.type !== undefined && value.type !== 'group') throw new Bad(`${path}.type`, 'Expected a group here.');
    if (depth > MAX_DEPTH) throw new Bad(path, `Groups may be nested at most ${MAX_DEPTH} deep.`);
    const match = oneOf(`${path}.match`, value.match, ['all', 'any'] as const, 'match');
    if (!Array.isArray(value.conditions)) throw new Bad(`${path}.conditions`, 'The conditions are missing: a list of conditions and groups.');
    const out: Condition[] = [];
    value.conditions.forEach((item, i) => {
      const at = `${path}.conditions[${i}]`;
      try {
        if (++conditions > MAX_CONDITIONS) throw new Bad(at, `A segment has at most ${MAX_CONDITIONS} conditions.`);
        if (!isObject(item)) throw new Bad(at, 'A condition must be an object.');
        out.push(item.type === 'group' ? group(at, item, depth + 1) : leaf(at, item, vocabulary));
      } catch (e) {
        note(e);
      }
    });
    return { type: 'group', match, conditions: out };
  };
  let definition: GroupCondition | null = null;
  try {
    definition = group(root, input, 1);
  } catch (e) {
    note(e);
  }
  if (Object.keys(errors).length > 0 || !definition) return { ok: false, errors };
  return { ok: true, definition };
}

/** Attribute and list ids the definition refers to (for telling which segments an attribute or list matters to). */
export function referencedIds(definition: GroupCondition): { attributes: Set<number>; lists: Set<number> } {
  const attributes = new Set<number>();
  const lists = new Set<number>();
  const walk = (c: Condition) => {
    if (c.type === 'group') c.conditions.forEach(walk);
    else if (c.type === 'attribute') attributes.add(c.attributeId);
    else if (c.type === 'list') c.listIds.forEach((id) => lists.add(id));
    else if (c.type === 'subscribed' && c.listId !== null) lists.add(c.listId);
  };
  walk(definition);
  return { attributes, lists };
}
