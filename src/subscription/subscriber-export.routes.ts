import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../shared/schemas.js';
import { ExportBody, ExportCsv, ExportQuery } from './subscriber-export.schemas.js';
import * as service from './subscriber-export.service.js';

const tags = ['subscribers'];
const description =
  'Filters: `list_id`, `is_confirmed`, `is_blacklisted`, and `date_from`/`date_to` (days, both included) on the date ' +
  '`date_type` names (`signup`, `changed`, `subscribed` with a list; `any`/`changelog`: no date filter). `columns` in ' +
  'order: subscriber fields and attribute names. Streamed in id order; booleans as 1/0.';

/** `columns[]=a&columns[]=b`, `columns=a,b` and camelCase names all read as `columns`, snake_case. */
function normaliseQuery(request: FastifyRequest): void {
  const query = request.query as Record<string, unknown>;
  for (const key of Object.keys(query)) {
    const snake = key.replace(/\[\]$/, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    if (snake !== key && !(snake in query)) {
      query[snake] = query[key];
      delete query[key];
    }
  }
  const columns = query.columns;
  if (columns !== undefined) {
    query.columns = (Array.isArray(columns) ? columns : [columns])
      .flatMap((c) => String(c).split(','))
      .map((c) => c.trim())
      .filter(Boolean);
  }
}

async function send(reply: FastifyReply, result: Awaited<ReturnType<typeof service.exportSubscribers>>) {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename=${result.filename}`)
    .header('cache-control', 'no-store')
    .send(result.body);
}

export const subscriberExportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const canExport = app.requireAuth('subscribers', 'You are not allowed to export subscribers.');
  const response = {
    200: { description: 'The CSV file', content: { 'text/csv': { schema: ExportCsv } } },
    ...errorResponses(403, 404, 422),
  };

  app.post(
    '/subscribers/export',
    {
      onRequest: canExport,
      schema: {
        tags,
        operationId: 'exportSubscribers',
        summary: 'Export subscribers as a CSV file, streamed',
        description,
        body: ExportBody,
        response,
      },
    },
    async (request, reply) => send(reply, await service.exportSubscribers(app.ctx, request.body)),
  );

  app.get(
    '/subscribers/export',
    {
      onRequest: canExport,
      preValidation: async (request) => normaliseQuery(request),
      schema: {
        tags,
        operationId: 'exportSubscribersByQuery',
        summary: "The same export with query parameters (the alias phpList's JS client calls)",
        description,
        querystring: ExportQuery,
        response,
      },
    },
    async (request, reply) => send(reply, await service.exportSubscribers(app.ctx, request.query)),
  );
};
