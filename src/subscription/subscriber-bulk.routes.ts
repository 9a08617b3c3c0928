import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../plugins/auth.js';
import { errorResponses } from '../shared/schemas.js';
import { originOf } from './history-origin.js';
import { ExportCsv } from './subscriber-export.schemas.js';
import { BulkBody, BulkExportBody, BulkJob, BulkJobParams, MAX_BULK_IDS } from './subscriber-bulk.schemas.js';
import { stopBulkJobs } from './subscriber-bulk.jobs.js';
import * as service from './subscriber-bulk.service.js';
import { BULK_BATCH_SIZE } from './subscriber-bulk.service.js';

const tags = ['subscribers'];

async function sendCsv(reply: FastifyReply, result: { filename: string; body: Readable }) {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename=${result.filename}`)
    .header('cache-control', 'no-store')
    .send(result.body);
}

const selectionRules =
  `Select with \`ids\` (at most ${MAX_BULK_IDS}) or \`filter\` (the query of \`GET /subscribers\` as an object: every ` +
  'match), exactly one of them; neither, both, an unknown list or attribute in the filter → 422 naming the field.';

export const subscriberBulkRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('subscribers', 'You are not allowed to change subscribers in bulk.');
  // Running jobs finish their batch and stop before the database closes.
  app.addHook('onClose', async () => stopBulkJobs(app.ctx));

  app.post(
    '/subscribers/bulk',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'startSubscriberBulkAction',
        summary: 'Add to or remove from a list, blacklist or delete many subscribers, as a job with progress',
        description:
          `${selectionRules} \`list_id\` is required by \`add_to_list\` and \`remove_from_list\` (a list owned by ` +
          'another administrator: 403). `reason` goes with `blacklist`. The work is done in batches of ' +
          `${BULK_BATCH_SIZE}, each one transaction; a selection of one batch is done before the answer (200), a ` +
          'larger one goes on in the background (202) and `GET /bulk-jobs/{jobId}` shows its progress. ' +
          'Blacklisted subscribers are not added to lists. Each subscriber changed gets a history entry naming the ' +
          'administrator; blacklisting reports `subscriber.blacklisted` webhooks as a single blacklisting does.',
        body: BulkBody,
        response: { 200: BulkJob, 202: BulkJob, ...errorResponses(400, 403, 422) },
      },
    },
    async (request, reply) => {
      const { job, finished } = await service.startBulk(app.ctx, request.body, callerOf(request).id, originOf(request));
      return reply.code(finished ? 200 : 202).send(job);
    },
  );

  app.get(
    '/bulk-jobs/:jobId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'getSubscriberBulkJob',
        summary: "A bulk action's progress: done of total, and its state",
        params: BulkJobParams,
        response: { 200: BulkJob, ...errorResponses(403, 404) },
      },
    },
    async (request) => service.getJob(app.ctx, request.params.jobId),
  );

  app.post(
    '/subscribers/bulk/export',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'exportSubscriberSelection',
        summary: 'Export the selected subscribers (ids, or every match of a filter) as a CSV file, streamed',
        description: `${selectionRules} \`columns\` as in \`POST /subscribers/export\`.`,
        body: BulkExportBody,
        response: { 200: { description: 'The CSV file', content: { 'text/csv': { schema: ExportCsv } } }, ...errorResponses(400, 403, 422) },
      },
    },
    async (request, reply) => {
      return sendCsv(reply, await service.exportSelection(app.ctx, request.body));
    },
  );
};
