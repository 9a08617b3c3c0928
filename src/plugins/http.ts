import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadRequestError, NotFoundError } from '../shared/errors.js';
import { normalisePageQuery } from '../shared/pagination.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Leave body keys as sent (bodies keyed by user data, e.g. attribute names). */
    keepBodyKeys?: boolean;
  }
}

const JSON_SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'",
  'x-frame-options': 'DENY',
};

/**
 * The transport conventions of phpList's API (reference §1): JSON bodies read whatever the content type says,
 * an empty body is `{}`, camelCase keys are accepted as their snake_case names, lenient cursor parameters,
 * security headers on JSON responses, route-level 404 and 405 with phpList's messages.
 */
export function registerHttpConventions(app: FastifyInstance): void {
  const parseJson = (_req: FastifyRequest, body: string, done: (err: Error | null, value?: unknown) => void) => {
    if (body.trim() === '' || body.trim() === '0') return done(null, {});
    try {
      const value: unknown = JSON.parse(body);
      done(null, Array.isArray(value) && value.length === 0 ? {} : value);
    } catch (err) {
      done(new BadRequestError(`Invalid JSON: ${(err as Error).message}`));
    }
  };
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson);
  app.addContentTypeParser('*', { parseAs: 'string' }, parseJson);

  app.addHook('preValidation', async (request) => {
    if (request.query && typeof request.query === 'object') normalisePageQuery(request.query as Record<string, unknown>);
    // No body at all (no content type, so no parser ran) reads as `{}` too, so missing fields are named one by one.
    if (request.body === undefined && request.routeOptions.schema?.body) request.body = {};
    if (!request.routeOptions.config.keepBodyKeys && isPlainObject(request.body)) {
      request.body = snakeKeys(request.body);
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-request-id', request.id);
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('application/json')) reply.headers(JSON_SECURITY_HEADERS);
    return payload;
  });

  const routes: { method: string; pattern: RegExp }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const pattern = new RegExp(
      `^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`,
    );
    for (const method of methods) routes.push({ method, pattern });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))].filter(
      (m) => m !== 'HEAD',
    );
    if (allowed.length > 0 && request.method !== 'OPTIONS') {
      return reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send({ message: `${routeNotFoundMessage(request)}: Method Not Allowed (Allow: ${allowed.join(', ')})` });
    }
    return reply.code(404).send({ message: routeNotFoundMessage(request) });
  });
}

export function routeNotFoundMessage(request: FastifyRequest): string {
  const path = request.url.split('?')[0];
  return `No route found for "${request.method} ${request.protocol}://${request.host}${path}"`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}

/** Renames camelCase keys to snake_case, recursively, unless the snake_case key is also present. */
function snakeKeys(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const snake = /^[a-z][a-zA-Z0-9]*$/.test(key) ? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : key;
    const target = snake !== key && snake in value ? key : snake;
    out[target] = isPlainObject(inner) ? snakeKeys(inner) : inner;
  }
  return out;
}

/**
 * A path id read before validation (for hooks that must answer 404 before the body is checked, per the order
 * of checks in DECISIONS.md). Non-digits are an unknown route, as phpList's `\d+` requirement makes them.
 */
export function rawPathId(request: FastifyRequest, name: string): number {
  const value = (request.params as Record<string, string | undefined>)[name];
  if (!value || !/^\d{1,10}$/.test(value) || Number(value) > 2_147_483_647) {
    throw new NotFoundError(routeNotFoundMessage(request));
  }
  return Number(value);
}
