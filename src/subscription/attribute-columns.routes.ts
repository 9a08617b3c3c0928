import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { Id, errorResponses } from '../shared/schemas.js';
import { ValidationError } from '../shared/errors.js';
import { displayAttributeValue } from './attribute-value.rules.js';
import { loadDefinitionsWithOptions } from './attribute.repository.js';
import { attributeValuesOf } from './subscriber-export.repository.js';

/*
 * `GET /subscribers/attribute-values`: the values of a few attributes for a page of subscribers, in one request, for
 * the console's attribute columns (one request per row would be fifty per page).
 */

const MAX_SUBSCRIBERS = 100;
const MAX_DEFINITIONS = 20;
const idList = (most: number, what: string) =>
  Type.String({ pattern: '^\\d{1,10}(,\\d{1,10})*$', maxLength: most * 11, description: `Comma-separated ${what} ids, at most ${most}` });

export const AttributeColumnsQuery = Type.Object({
  subscribers: idList(MAX_SUBSCRIBERS, 'subscriber'),
  definitions: idList(MAX_DEFINITIONS, 'attribute definition'),
});
type AttributeColumnsQuery = Static<typeof AttributeColumnsQuery>;

const AttributeCell = Type.Object({
  subscriber_id: Id,
  definition_id: Id,
  value: Type.String({ description: 'As people read it: option names rather than their ids' }),
});
export const AttributeColumns = Type.Object({ items: Type.Array(AttributeCell) });
type AttributeColumns = Static<typeof AttributeColumns>;

function ids(field: string, text: string, most: number): number[] {
  const list = [...new Set(text.split(',').map(Number))];
  if (list.length > most) throw ValidationError.field(field, `At most ${most} ids.`);
  return list;
}

export async function attributeColumns(ctx: AppContext, query: AttributeColumnsQuery): Promise<AttributeColumns> {
  const subscriberIds = ids('subscribers', query.subscribers, MAX_SUBSCRIBERS);
  const definitionIds = ids('definitions', query.definitions, MAX_DEFINITIONS);
  const definitions = new Map((await loadDefinitionsWithOptions(ctx.db)).map((d) => [d.id, d]));
  const rows = await attributeValuesOf(ctx.db, subscriberIds, definitionIds);
  const items = rows.flatMap((r) => {
    const definition = definitions.get(r.definitionId);
    return definition ? [{ subscriber_id: r.subscriberId, definition_id: r.definitionId, value: displayAttributeValue(definition, r.value) }] : [];
  });
  return { items };
}

export const attributeColumnRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/subscribers/attribute-values',
    {
      onRequest: app.requireAuth('subscribers', 'You are not allowed to view subscribers.'),
      schema: {
        tags: ['subscriber attributes'],
        operationId: 'listAttributeColumns',
        summary: 'The values of some attributes for some subscribers (a page of the list view), as people read them',
        querystring: AttributeColumnsQuery,
        response: { 200: AttributeColumns, ...errorResponses(403, 422) },
      },
    },
    async (request) => attributeColumns(app.ctx, request.query),
  );
};
