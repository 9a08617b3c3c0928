import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

/**
 * OpenAPI 3.1 built from the route schemas, served at /api/v2/openapi.json, and an interactive reference at /docs
 * whose assets come from the installed package (no CDN: works offline).
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Mailroom API',
        version: '2.0.0',
        description:
          "Mailroom speaks phpList 4's REST API v2. Log in with `POST /api/v2/sessions`, then send the key as " +
          '`php-auth-pw`, as the password of HTTP Basic auth, or as a Bearer token.',
      },
      components: {
        securitySchemes: {
          phpAuthPw: { type: 'apiKey', in: 'header', name: 'php-auth-pw' },
          basic: { type: 'http', scheme: 'basic' },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ phpAuthPw: [] }, { basic: [] }, { bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: false });
  app.get('/api/v2/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
