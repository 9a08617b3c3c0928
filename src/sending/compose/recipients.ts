import type { AppContext } from '../../context.js';
import { loadDefinitionsWithOptions, displayAttributeValue } from '../../subscription/index.js';
import { attributeValuesOf, publicListNamesOf, subscribersByIds } from './compose.repository.js';
import { normaliseName } from './placeholders.js';
import type { RecipientData } from './types.js';

/**
 * The renderer's view of a batch of subscribers: five queries whatever the batch size (subscribers, their
 * attribute values, their public lists, the attribute definitions and their options). Answered in the order of
 * `subscriberIds`; ids of subscribers that no longer exist are left out.
 */
export async function loadRecipients(ctx: AppContext, subscriberIds: readonly number[]): Promise<RecipientData[]> {
  const ids = [...new Set(subscriberIds)];
  if (ids.length === 0) return [];
  const [rows, values, listRows, definitions] = await Promise.all([
    subscribersByIds(ctx.db, ids),
    attributeValuesOf(ctx.db, ids),
    publicListNamesOf(ctx.db, ids),
    loadDefinitionsWithOptions(ctx.db),
  ]);
  const definitionById = new Map(definitions.map((d) => [d.id, { key: normaliseName(d.name), definition: d }]));

  const attributes = new Map<number, Map<string, string>>();
  for (const value of values) {
    const known = definitionById.get(value.definitionId);
    if (!known) continue;
    const display = displayAttributeValue(known.definition, value.value);
    if (display === '') continue;
    let map = attributes.get(value.subscriberId);
    if (!map) attributes.set(value.subscriberId, (map = new Map()));
    map.set(known.key, display);
  }
  const listNames = new Map<number, string[]>();
  for (const row of listRows) {
    const names = listNames.get(row.subscriberId) ?? [];
    names.push(row.name);
    listNames.set(row.subscriberId, names);
  }

  const byId = new Map(rows.map((row) => [row.id, row]));
  const none = new Map<string, string>();
  const out: RecipientData[] = [];
  for (const id of ids) {
    const row = byId.get(id);
    if (!row) continue;
    out.push({
      subscriberId: row.id,
      uniqueId: row.uniqueId,
      email: row.email,
      htmlEmail: row.htmlEmail,
      confirmed: row.confirmed,
      blacklisted: row.blacklisted,
      disabled: row.disabled,
      bounceCount: row.bounceCount,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      attributes: attributes.get(id) ?? none,
      lists: listNames.get(id) ?? [],
    });
  }
  return out;
}
