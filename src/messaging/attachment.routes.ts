import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { rawPathId } from '../plugins/http.js';
import { HttpError, PayloadTooLargeError } from '../shared/errors.js';
import { errorResponses } from '../shared/schemas.js';
import { attachmentStorage } from './attachment-storage.js';
import { Attachment, CampaignAttachmentParams, CampaignParams } from './attachment.schemas.js';
import * as service from './attachment.service.js';
import { formParts } from '../plugins/multipart-form.js';

const tags = ['attachments'];
export const ATTACHMENTS_DENIED = 'You are not allowed to manage attachments.';
/** Room for the description and the multipart framing around the file. */
const FORM_OVERHEAD = 64 * 1024;

export const attachmentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('campaigns', ATTACHMENTS_DENIED);
  const storage = attachmentStorage(app.ctx);
  const limit = app.ctx.config.attachmentMaxSize;
  // One byte over the limit reaches storage, which refuses it (413) and keeps nothing. preservePath keeps the
  // name as sent, so a name with separators is refused rather than silently cut to its last segment.
  await app.register(multipart, {
    preservePath: true,
    throwFileSizeLimit: false,
    limits: { fileSize: limit + 1, files: 3, fields: 10, fieldSize: 64 * 1024 },
  });

  app.post(
    '/campaigns/:messageId/attachments',
    {
      onRequest: guard,
      preValidation: async (request) => {
        await service.requireCampaign(app.ctx, rawPathId(request, 'messageId'));
        if (!request.isMultipart()) {
          throw new HttpError(415, 'Send the file as multipart/form-data, in a field named "file".');
        }
        // Refused before a byte is stored when the client says how large it is.
        if (Number(request.headers['content-length']) > limit + FORM_OVERHEAD) {
          throw new PayloadTooLargeError(`The file is larger than the limit of ${limit} bytes.`);
        }
      },
      schema: {
        tags,
        operationId: 'uploadAttachment',
        summary: 'Attach a file to a campaign (multipart `file`, optional `description`), streamed into storage',
        consumes: ['multipart/form-data'],
        params: CampaignParams,
        response: { 201: Attachment, ...errorResponses(400, 403, 404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.uploadAttachment(app.ctx, storage, request.params.messageId, formParts(request))),
  );

  app.get(
    '/campaigns/:messageId/attachments',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listAttachments',
        summary: "A campaign's attachments, in upload order",
        params: CampaignParams,
        response: { 200: Type.Array(Attachment), ...errorResponses(403, 404) },
      },
    },
    async (request) => service.listAttachments(app.ctx, request.params.messageId),
  );

  app.delete(
    '/campaigns/:messageId/attachments/:attachmentId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'deleteAttachment',
        summary: 'Remove an attachment from a campaign (the stored file goes when nothing else uses it)',
        params: CampaignAttachmentParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await service.deleteAttachment(app.ctx, storage, request.params.messageId, request.params.attachmentId);
      return reply.code(204).send();
    },
  );
};
