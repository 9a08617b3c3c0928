import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorResponses } from '../shared/schemas.js';
import { PublicMediaParams, PublicThumbnailParams } from './media.schemas.js';
import * as service from './media.service.js';

/*
 * The media library's public addresses, `/media/{key}/{filename}` and `/media/{key}/thumbnail`: what mail and
 * templates load. The bytes under a key never change, so they are cached for a year as immutable; the ETag is their
 * SHA-256. Nothing here reads a path the request names: the key finds a database row, and the file name must be the
 * row's own. Unauthenticated like the open pixel; the key (128 random bits) is the only way to an image.
 */

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The headers every answer carries, and whether the client's cached copy is still good (304). */
function cached(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  reply
    .header('cache-control', IMMUTABLE)
    .header('etag', etag)
    .header('x-content-type-options', 'nosniff')
    // Loaded by mail clients and web pages of any origin.
    .header('cross-origin-resource-policy', 'cross-origin');
  const given = request.headers['if-none-match'];
  return typeof given === 'string' && given.split(',').some((tag) => tag.trim() === etag || tag.trim() === `W/${etag}`);
}

const binary = (type: string) => ({ description: 'The image', content: { [type]: { schema: { type: 'string', format: 'binary' } } } });

export const mediaPublicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/media/:key/thumbnail',
    {
      schema: {
        tags: ['media'],
        operationId: 'mediaThumbnail',
        summary: "An image's thumbnail (WebP, at most 320 pixels on its longer side), cached as immutable",
        security: [],
        params: PublicThumbnailParams,
        response: { 200: binary('image/webp'), 304: { type: 'null', description: 'Not modified' }, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { thumbnail, contentHash } = await service.publicThumbnail(app.ctx, request.params.key);
      if (cached(request, reply, `"${contentHash}-320"`)) return reply.code(304).send();
      return reply.header('content-type', 'image/webp').send(thumbnail);
    },
  );

  app.get(
    '/media/:key/:filename',
    {
      schema: {
        tags: ['media'],
        operationId: 'mediaFile',
        summary: 'An image of the media library, cached as immutable',
        security: [],
        params: PublicMediaParams,
        response: { 200: binary('image/*'), 304: { type: 'null', description: 'Not modified' }, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { row, stream } = await service.openPublicMedia(app.ctx, request.params.key, request.params.filename);
      if (cached(request, reply, `"${row.contentHash}"`)) return reply.code(304).send();
      return reply
        .header('content-type', row.mimeType)
        .header('content-length', String(row.size))
        .header('content-disposition', `inline; filename="${row.filename}"`)
        .send(stream());
    },
  );
};
