import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { STYLESHEET, STYLESHEET_FILE } from './stylesheet.js';

/** `GET /public/style.<hash>.css`: the stylesheet of the public pages; any other name is a 404. */
export const publicAssetRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/public/:file',
    {
      schema: {
        tags: ['public pages'],
        operationId: 'getPublicStylesheet',
        summary: 'The stylesheet of the public pages, at a URL naming its content hash (cached for a year)',
        security: [],
        params: Type.Object({ file: Type.String({ maxLength: 100 }) }),
        response: {
          200: { content: { 'text/css': { schema: Type.String() } } },
          404: { content: { 'text/plain': { schema: Type.String() } } },
        },
      },
    },
    async (request, reply) => {
      if (request.params.file !== STYLESHEET_FILE) {
        return reply.code(404).header('x-content-type-options', 'nosniff').type('text/plain; charset=utf-8').send('Not found\n');
      }
      return reply
        .code(200)
        .headers({ 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' })
        .type('text/css; charset=utf-8')
        .send(STYLESHEET);
    },
  );
};
