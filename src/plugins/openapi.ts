import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { SEGMENT_COMPONENTS } from '../segments/index.js';

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
        license: { name: 'AGPL-3.0-or-later', identifier: 'AGPL-3.0-or-later' },
        description:
          "Mailroom speaks phpList 4's REST API v2. Log in with `POST /api/v2/sessions`, then send the key as " +
          '`php-auth-pw`, as the password of HTTP Basic auth, or as a Bearer token.',
      },
      // Paths carry their full prefix, so the one server is wherever the document was fetched from.
      servers: [{ url: '/', description: 'This Mailroom service' }],
      components: {
        // Shapes routes cannot declare themselves (recursive): the segment definition's JSON Schema.
        schemas: SEGMENT_COMPONENTS as Record<string, object>,
        securitySchemes: {
          phpAuthPw: { type: 'apiKey', in: 'header', name: 'php-auth-pw' },
          basic: { type: 'http', scheme: 'basic' },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ phpAuthPw: [] }, { basic: [] }, { bearer: [] }],
    },
    // `errorMessage` is our validator's private keyword (shared/validation.ts); OpenAPI has no such field.
    transformObject: (documents) => withoutPrivateKeywords('openapiObject' in documents ? documents.openapiObject : documents.swaggerObject),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  // The reference page loads only its own scripts and styles (its inline styles are the UI's own).
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: DOCS_CSP });
  app.get('/api/v2/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function withoutPrivateKeywords<T>(document: T): T {
  return JSON.parse(JSON.stringify(document), (key, value: unknown) => (key === 'errorMessage' ? undefined : value)) as T;
}
