import type { AppContext } from '../context.js';
import type { Executor } from '../db/client.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { toPage } from '../shared/pagination.js';
import * as repo from './attribute.repository.js';
import {
  ATTRIBUTE_TYPES,
  OPTION_TYPES,
  type AttributeDefinition,
  type AttributeDefinitionBody,
  type OptionInput,
  type SubscriberAttributeValue,
  type SubscriberAttributeValueBody,
} from './attribute.schemas.js';
import { defaultAsValue } from './attribute-default.js';
import { checkAttributeValue } from './attribute-value.rules.js';
import { toSubscriber, type SubscriberRow } from './subscriber.repository.js';
import { listsOfSubscribers } from './subscriber.repository.js';
import { requireSubscriber } from './subscriber.service.js';
import { DEFINITION_NOT_FOUND } from './attribute.repository.js';
import { loginNameOf } from '../identity/index.js';
import { displayAttributeValue } from './attribute-value.rules.js';
import { insertHistory } from './subscriber-history.repository.js';
import type { HistoryOrigin } from './subscriber-history.schemas.js';

export { DEFINITION_NOT_FOUND };

/** Who changes a value and from where, for the subscriber's history. */
export interface ValueEditor {
  adminId: number;
  origin: HistoryOrigin;
}

/**
 * The history entry of an administrator's change to an attribute value, in phpList's `<field> = <new> *changed* from
 * <old>` form, values as the console shows them (option names, not ids). Nothing when the value stays the same.
 */
async function recordValueChange(
  tx: Executor,
  subscriberId: number,
  definition: repo.DefinitionWithOptions,
  before: string | null,
  after: string | null,
  editor: ValueEditor,
): Promise<void> {
  if (before === after) return;
  const shown = (value: string | null) => (value === null ? '(none)' : JSON.stringify(displayAttributeValue(definition, value)));
  const login = await loginNameOf(tx, editor.adminId);
  const detail = `attribute "${definition.name}" = ${shown(after)} *changed* from ${shown(before)}`;
  await insertHistory(tx, subscriberId, editor.origin, `Update by ${login}`, detail);
}
const VALUE_NOT_FOUND = 'Subscriber attribute not found.';

export async function requireDefinition(ctx: AppContext, id: number) {
  const row = await repo.findDefinition(ctx.db, id);
  if (!row) throw new NotFoundError(DEFINITION_NOT_FOUND);
  return row;
}

export async function getDefinition(ctx: AppContext, id: number): Promise<AttributeDefinition> {
  return repo.toDefinition(await requireDefinition(ctx, id));
}

export async function listDefinitions(ctx: AppContext, afterId: number, limit: number) {
  const { rows, total } = await repo.listDefinitions(ctx.db, afterId, limit);
  return toPage(rows.map(repo.toDefinition), total, limit, (d) => d.id);
}

/** The type in lower case, or a 422 in phpList's words. */
function checkType(raw: string): string {
  const type = raw.trim().toLowerCase();
  if ((ATTRIBUTE_TYPES as readonly string[]).includes(type)) return type;
  if (type === 'text' || type === 'number') {
    throw ValidationError.field('type', `Invalid attribute type: "${type}". Valid types are: ${ATTRIBUTE_TYPES.join(', ')}`);
  }
  throw ValidationError.field('type', `Invalid attribute type: "${raw}". Valid types are: ${ATTRIBUTE_TYPES.join(', ')}`);
}

/** Options of a create: duplicate names (case-insensitive) dropped, missing orders numbered 1, 2, 3 … skipping used ones. */
function newOptions(inputs: readonly OptionInput[], usedOrders: Set<number>) {
  const seen = new Set<string>();
  const out: { name: string; listOrder: number }[] = [];
  for (const input of inputs) {
    const name = input.name.trim();
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    out.push({ name, listOrder: input.list_order ?? -1 });
  }
  for (const o of out) if (o.listOrder >= 0) usedOrders.add(o.listOrder);
  let next = 1;
  for (const o of out) {
    if (o.listOrder >= 0) continue;
    while (usedOrders.has(next)) next++;
    o.listOrder = next;
    usedOrders.add(next);
  }
  return out;
}

export async function createDefinition(ctx: AppContext, body: AttributeDefinitionBody): Promise<AttributeDefinition> {
  const name = body.name.trim();
  const type = checkType(body.type);
  return ctx.db.transaction(async (tx) => {
    if (await repo.definitionNameTaken(tx, name)) throw new ConflictError('Attribute definition already exists.');
    const row = await repo.insertDefinition(tx, {
      name,
      type,
      listOrder: body.order ?? null,
      defaultValue: body.default_value ?? null,
      required: body.required ?? false,
      subscriberEditable: body.subscriber_editable ?? false,
    });
    if (OPTION_TYPES.has(type)) await repo.insertOptions(tx, row.id, newOptions(body.options ?? [], new Set()));
    return repo.toDefinition((await repo.findDefinition(tx, row.id))!);
  });
}

/**
 * Sync of reference §7.7: options with an id are updated, options without one that match an existing name update
 * that row, the rest are inserted; existing options left out are deleted unless some subscriber's value uses them.
 */
async function syncOptions(tx: Executor, definition: repo.DefinitionWithOptions, inputs: readonly OptionInput[]) {
  const existing = definition.options;
  const kept = new Set<number>();
  const toInsert: OptionInput[] = [];
  const finalNames = new Map<string, number>(); // lower name → option id, to refuse a rename onto another option
  for (const o of existing) finalNames.set(o.name.toLowerCase(), o.id);
  const errors: string[] = [];
  for (const input of inputs) {
    const name = input.name.trim();
    const lower = name.toLowerCase();
    const target =
      (input.id != null ? existing.find((o) => o.id === input.id) : undefined) ??
      (input.id == null ? existing.find((o) => o.name.toLowerCase() === lower) : undefined);
    if (input.id != null && !target) {
      errors.push(`Option ${input.id} does not belong to this attribute.`);
      continue;
    }
    if (!target) {
      if (!toInsert.some((o) => o.name.trim().toLowerCase() === lower)) toInsert.push(input);
      continue;
    }
    const holder = finalNames.get(lower);
    if (holder !== undefined && holder !== target.id) {
      errors.push(`Option name ${name} already exists.`);
      continue;
    }
    finalNames.delete(target.name.toLowerCase());
    finalNames.set(lower, target.id);
    kept.add(target.id);
    await repo.updateOption(tx, target.id, { name, listOrder: input.list_order ?? target.listOrder });
  }
  if (errors.length > 0) throw new ValidationError({ options: errors });
  const dropped = existing.filter((o) => !kept.has(o.id)).map((o) => o.id);
  const inUse = await repo.optionsInUse(tx, definition.id, dropped);
  await repo.deleteOptions(
    tx,
    dropped.filter((id) => !inUse.has(id)),
  );
  const usedOrders = new Set(existing.filter((o) => kept.has(o.id) || inUse.has(o.id)).map((o) => o.listOrder));
  const fresh = newOptions(
    toInsert.filter((o) => !existing.some((e) => inUse.has(e.id) && e.name.toLowerCase() === o.name.trim().toLowerCase())),
    usedOrders,
  );
  await repo.insertOptions(tx, definition.id, fresh);
}

export async function updateDefinition(ctx: AppContext, id: number, body: AttributeDefinitionBody): Promise<AttributeDefinition> {
  const name = body.name.trim();
  const type = checkType(body.type);
  return ctx.db.transaction(async (tx) => {
    const definition = await repo.findDefinition(tx, id);
    if (!definition) throw new NotFoundError(DEFINITION_NOT_FOUND);
    if (await repo.definitionNameTaken(tx, name, id)) throw new ConflictError('Another attribute with this name already exists.');
    const oldType = (definition.type ?? 'textline').toLowerCase();
    if (OPTION_TYPES.has(oldType) !== OPTION_TYPES.has(type)) {
      throw ValidationError.field(
        'type',
        `The type cannot change from ${oldType} to ${type}: options types (${[...OPTION_TYPES].join(', ')}) ` +
          'change only among themselves, and the others only among themselves.',
      );
    }
    await repo.updateDefinition(tx, id, {
      name,
      type,
      ...(body.order !== undefined ? { listOrder: body.order } : {}),
      ...(body.default_value !== undefined ? { defaultValue: body.default_value } : {}),
      ...(body.required !== undefined ? { required: body.required } : {}),
      ...(body.subscriber_editable !== undefined ? { subscriberEditable: body.subscriber_editable } : {}),
    });
    if (OPTION_TYPES.has(type) && body.options != null) await syncOptions(tx, definition, body.options);
    return repo.toDefinition((await repo.findDefinition(tx, id))!);
  });
}

export async function deleteDefinition(ctx: AppContext, id: number): Promise<void> {
  if (!(await repo.deleteDefinition(ctx.db, id))) throw new NotFoundError(DEFINITION_NOT_FOUND);
}

async function toValue(
  ctx: AppContext,
  subscriber: SubscriberRow,
  definition: repo.DefinitionWithOptions,
  value: string | null,
): Promise<SubscriberAttributeValue> {
  const lists = await listsOfSubscribers(ctx.db, [subscriber.id]);
  return { subscriber: toSubscriber(subscriber, lists.get(subscriber.id)), definition: repo.toDefinition(definition), value };
}

/** The path entities of a value write, in phpList's order: the definition, then the subscriber. */
export async function requireValueTarget(ctx: AppContext, subscriberId: number, definitionId: number) {
  const definition = await requireDefinition(ctx, definitionId);
  const subscriber = await requireSubscriber(ctx, subscriberId);
  return { subscriber, definition };
}

/** What a value written without one becomes: the default as attribute-default.ts reads it; none is 422 at `value`. */
function fallbackValue(definition: repo.DefinitionWithOptions): string {
  const value = defaultAsValue(definition);
  if (value !== null) return value;
  const given = definition.defaultValue;
  if (given === null) throw ValidationError.field('value', 'A value is required: this attribute has no default value.');
  const why = definition.type?.toLowerCase() === 'date' ? 'is not a date' : 'names none of its options';
  throw ValidationError.field('value', `A value is required: this attribute's default "${given}" ${why}.`);
}

/** Creates or replaces a value, checked against the definition's type. Absent or null: the default. */
export async function setValue(
  ctx: AppContext,
  subscriberId: number,
  definitionId: number,
  body: SubscriberAttributeValueBody,
  editor: ValueEditor,
): Promise<SubscriberAttributeValue> {
  const { subscriber, definition } = await requireValueTarget(ctx, subscriberId, definitionId);
  const raw = body.value ?? fallbackValue(definition);
  const checked = checkAttributeValue(definition, raw);
  if (!checked.ok) throw ValidationError.field('value', checked.reason);
  const row = await ctx.db.transaction(async (tx) => {
    const before = await repo.findValue(tx, subscriberId, definitionId);
    const stored = await repo.upsertValue(tx, subscriberId, definitionId, checked.stored);
    await recordValueChange(tx, subscriberId, definition, before?.value ?? null, stored.value, editor);
    return stored;
  });
  return toValue(ctx, subscriber, definition, row.value);
}

export async function getValue(ctx: AppContext, subscriberId: number, definitionId: number): Promise<SubscriberAttributeValue> {
  const subscriber = await requireSubscriber(ctx, subscriberId);
  const row = await repo.findValue(ctx.db, subscriberId, definitionId);
  if (!row) throw new NotFoundError(VALUE_NOT_FOUND);
  const definition = await requireDefinition(ctx, definitionId);
  return toValue(ctx, subscriber, definition, row.value);
}

export async function listValues(ctx: AppContext, subscriberId: number, afterDefinitionId: number, limit: number) {
  const subscriber = await requireSubscriber(ctx, subscriberId);
  const [{ rows, total }, definitions, lists] = await Promise.all([
    repo.listValues(ctx.db, subscriberId, afterDefinitionId, limit),
    repo.loadDefinitionsWithOptions(ctx.db),
    listsOfSubscribers(ctx.db, [subscriberId]),
  ]);
  const byId = new Map(definitions.map((d) => [d.id, d]));
  const view = toSubscriber(subscriber, lists.get(subscriberId));
  const items = rows.map((r) => ({ subscriber: view, definition: repo.toDefinition(byId.get(r.definitionId)!), value: r.value }));
  // Values have no id of their own; after_id is a definition id and next_cursor the last one's.
  return toPage(items, total, limit, (item) => item.definition.id);
}

export async function deleteValue(ctx: AppContext, subscriberId: number, definitionId: number, editor: ValueEditor): Promise<void> {
  await requireSubscriber(ctx, subscriberId);
  const deleted = await ctx.db.transaction(async (tx) => {
    const before = await repo.findValue(tx, subscriberId, definitionId);
    if (!before || !(await repo.deleteValue(tx, subscriberId, definitionId))) return false;
    const definition = await repo.findDefinition(tx, definitionId);
    if (definition) await recordValueChange(tx, subscriberId, definition, before.value, null, editor);
    return true;
  });
  if (!deleted) throw new NotFoundError(VALUE_NOT_FOUND);
}
