import type { FastifyReply } from 'fastify';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { formParts, releaseUnreadBody } from '../plugins/multipart-form.js';
import { callerOf } from '../plugins/auth.js';
import { HttpError, PayloadTooLargeError } from '../shared/errors.js';
import { errorResponses } from '../shared/schemas.js';
import { originOf } from './history-origin.js';
import { ImportQuery, ImportReportCsv, ImportReportParams, ImportResult } from './subscriber-import.schemas.js';
import * as service from './subscriber-import.service.js';

/** Room for the form's other fields and the multipart framing around the file. */
const FORM_OVERHEAD = 64 * 1024;

export const subscriberImportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // Multipart parsing for this plugin's routes only; the file is streamed, never buffered.
  await app.register(multipart, {
    limits: { fileSize: app.ctx.config.uploadLimit, files: 2, fields: 20, fieldSize: 64 * 1024 },
  });
  // A refusal before the whole upload was read must not leave the rest stalling the client's connection.
  app.addHook('onSend', async (request, reply, payload) => {
    releaseUnreadBody(request, reply);
    return payload;
  });

  app.post(
    '/subscribers/import',
    {
      onRequest: app.requireAuth('subscribers', 'You are not allowed to create subscribers.'),
      preValidation: async (request) => {
        if (!request.isMultipart()) {
          throw new HttpError(415, 'Send the CSV file as multipart/form-data, in a field named "file".');
        }
        // Refused before a byte is read when the client says how large it is.
        const length = Number(request.headers['content-length']);
        if (length > app.ctx.config.uploadLimit + FORM_OVERHEAD) {
          throw new PayloadTooLargeError(`The file is larger than the upload limit of ${app.ctx.config.uploadLimit} bytes.`);
        }
      },
      schema: {
        tags: ['subscribers'],
        operationId: 'importSubscribers',
        summary: 'Import subscribers from a CSV file (multipart field `file`), streamed and written in bulk',
        description:
          'Form fields (or query parameters) `list_id`, `update_existing`, `skip_invalid_emails`, `send_confirmation`, `mark_confirmed`, before or ' +
          'after the file (see docs/api.md). The header names the columns, case-insensitively: `email` (required), `confirmed`, `blacklisted`, ' +
          '`html_email`, `disabled`, `extra_data`, `foreignkey`, and attribute definitions by name, unless the `columns` option maps ' +
          'them. `,` or `;`. The answer links a CSV report of the rows that created nobody (rejected, duplicate, existing).',
        consumes: ['multipart/form-data'],
        querystring: ImportQuery,
        response: { 200: ImportResult, ...errorResponses(400, 403, 404, 413, 415, 422) },
      },
    },
    async (request) =>
      service.importSubscribers(
        app.ctx,
        formParts(request, (err) => service.uploadError(app.ctx, err)),
        request.query,
        callerOf(request).id,
        originOf(request),
      ),
  );

  app.get(
    '/import-reports/:id',
    {
      onRequest: app.requireAuth('subscribers', 'You are not allowed to create subscribers.'),
      schema: {
        tags: ['subscribers'],
        operationId: 'getImportReport',
        summary: "An import's report: the rows that created nobody, as they were in the file, with line, outcome and reason",
        description:
          'Outcomes: `rejected` (nothing written; the reason says why), `duplicate_in_file` (an earlier row of the file has the ' +
          'address or foreign key), `existing_subscriber` (there before the import). Kept 24 hours, for the administrator who ran the import.',
        params: ImportReportParams,
        response: { 200: { description: 'The CSV file', content: { 'text/csv': { schema: ImportReportCsv } } }, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      const body = await service.importReport(app.ctx, callerOf(request).id, request.params.id);
      // The schema documents the CSV as a string; the body is the file streamed.
      return (reply as FastifyReply)
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename=import-report-${request.params.id}.csv`)
        .header('cache-control', 'no-store')
        .send(body);
    },
  );
};
