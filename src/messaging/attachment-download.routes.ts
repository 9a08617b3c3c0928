import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../shared/schemas.js';
import { attachmentStorage } from './attachment-storage.js';
import { DownloadParams, DownloadQuery } from './attachment.schemas.js';
import * as service from './attachment.service.js';

/** Specification: attachment downloads are streamed in chunks of 8192 bytes. */
const CHUNK_SIZE = 8192;

/**
 * `GET /attachments/download/{id}?uid=…`, public: the subscriber's uid is the credential. Registered under
 * `/api/v2` and, as the same handler, at the root (specification row 18); both are documented, as public.
 */
export const attachmentDownloadRoutes: FastifyPluginAsyncTypebox<{ alias?: boolean }> = async (app, options) => {
  const storage = attachmentStorage(app.ctx);
  app.get(
    '/attachments/download/:id',
    {
      schema: {
        tags: ['attachments'],
        operationId: options.alias === true ? 'downloadAttachmentUnprefixed' : 'downloadAttachment',
        summary: 'Download an attachment as a subscriber who was sent its campaign',
        security: [],
        params: DownloadParams,
        querystring: DownloadQuery,
        response: {
          200: { description: 'The file, streamed', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
          ...errorResponses(403, 404),
        },
      },
    },
    async (request, reply) => {
      const { row, stream } = await service.openDownload(app.ctx, storage, request.params.id, request.query.uid, CHUNK_SIZE);
      return reply
        .header('content-type', service.contentType(row.mimeType))
        .header('content-disposition', service.contentDisposition(row.filename))
        .header('content-length', String(row.size))
        .header('x-content-type-options', 'nosniff')
        .send(stream);
    },
  );
};
