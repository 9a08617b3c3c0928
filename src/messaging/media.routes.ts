import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../plugins/auth.js';
import { formParts, releaseUnreadBody } from '../plugins/multipart-form.js';
import { HttpError, PayloadTooLargeError } from '../shared/errors.js';
import { errorResponses } from '../shared/schemas.js';
import { Media, MediaInUse, MediaListQuery, MediaPage, MediaParams } from './media.schemas.js';
import * as service from './media.service.js';

const tags = ['media'];
export const MEDIA_DENIED = 'You are not allowed to manage media.';
/** Room for the alt text and the multipart framing around the file. */
const FORM_OVERHEAD = 16 * 1024;

/** The media library (issue 26): images for campaigns and templates, under the campaigns privilege. */
export const mediaRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('campaigns', MEDIA_DENIED);
  const limit = app.ctx.config.mediaMaxSize;
  // One byte over the limit reaches the service, which refuses it (413).
  await app.register(multipart, {
    throwFileSizeLimit: false,
    limits: { fileSize: limit + 1, files: 1, fields: 5, fieldSize: 4 * 1024 },
  });
  app.addHook('onSend', async (request, reply) => releaseUnreadBody(request, reply));

  app.post(
    '/media',
    {
      onRequest: guard,
      preValidation: async (request) => {
        if (!request.isMultipart()) throw new HttpError(415, 'Send the image as multipart/form-data, in a field named "file".');
        // Refused before a byte is read when the client says how large it is.
        if (Number(request.headers['content-length']) > limit + FORM_OVERHEAD) {
          throw new PayloadTooLargeError(`The image is larger than the limit of ${limit} bytes (MEDIA_MAX_SIZE).`);
        }
      },
      schema: {
        tags,
        operationId: 'uploadMedia',
        summary: 'Upload an image to the media library (multipart `file`, optional `alt`): PNG, JPEG, GIF or WebP, read from its bytes',
        consumes: ['multipart/form-data'],
        response: { 201: Media, ...errorResponses(400, 403, 413, 415, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.uploadMedia(app.ctx, callerOf(request).id, formParts(request))),
  );

  app.get(
    '/media',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listMedia',
        summary: 'The media library, newest first, each image with the campaigns and templates that use it',
        querystring: MediaListQuery,
        response: { 200: MediaPage, ...errorResponses(403) },
      },
    },
    async (request) => service.listMedia(app.ctx, request.query),
  );

  app.get(
    '/media/:mediaId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'getMedia',
        summary: 'One image of the media library',
        params: MediaParams,
        response: { 200: Media, ...errorResponses(403, 404) },
      },
    },
    async (request) => service.getMedia(app.ctx, request.params.mediaId),
  );

  app.delete(
    '/media/:mediaId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'deleteMedia',
        summary: 'Delete an image no campaign or template uses (409 naming them otherwise)',
        params: MediaParams,
        response: { 204: { type: 'null', description: 'Deleted' }, 409: MediaInUse, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      const uses = await service.deleteMedia(app.ctx, request.params.mediaId);
      if (uses.length > 0) return reply.code(409).send({ message: service.inUseMessage(uses), used_by: uses });
      return reply.code(204).send();
    },
  );
};
