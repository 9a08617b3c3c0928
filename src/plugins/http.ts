import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadRequestError, NotFoundError, ValidationError } from '../shared/errors.js';
import { normalisePageQuery } from '../shared/pagination.js';
import { findNul, foldPhpArrays, isPlainObject, parseJsonBody, snakeKeys, snakeName } from '../shared/request-input.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Leave body keys as sent (bodies keyed by user data, e.g. attribute names). */
    keepBodyKeys?: boolean;
    /**
     * The route's `limit` is validated as its schema says (the project's 422 naming `limit` outside the range)
     * instead of clamped the phpList way: Mailroom's own reports, where a wrong limit is a caller's mistake worth naming.
     */
    strictLimit?: boolean;
    /**
     * The route answers a NUL character in its path or query itself: a page that shows its own 404 for a mangled
     * link (confirm, unsubscribe, click tracking), and never hands such a value to the database.
     */
    allowNul?: boolean;
  }
}

const JSON_SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'",
  'x-frame-options': 'DENY',
};

/**
 * Every HTML page the service sends (start page, confirm page, tracking 404, /docs, pages to come) gets these; a
 * page that needs more (forms, scripts) sets its own Content-Security-Policy, which is kept.
 */
const HTML_SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};
const HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

type ObjectSchema = { properties?: Record<string, { type?: unknown }> } | undefined;

/** The query and body fields a route declares as arrays: the names PHP-style `name[]` keys may fill. */
function arrayFieldsOf(request: FastifyRequest): Set<string> {
  const names = new Set<string>();
  const schema = request.routeOptions.schema;
  for (const part of [schema?.querystring, schema?.body] as ObjectSchema[]) {
    for (const [name, field] of Object.entries(part?.properties ?? {})) if (field.type === 'array') names.add(name);
  }
  return names;
}

const NUL_IN_BODY = 'This value should not contain NUL characters (\\u0000).';

/**
 * The transport conventions of phpList's API (reference §1): JSON bodies read whatever the content type says,
 * an empty body is `{}`, camelCase keys are accepted as their snake_case names, query-string fields count as body
 * fields, PHP-style query arrays, lenient cursor parameters, no NUL characters anywhere, security headers,
 * route-level 404 and 405 with phpList's messages.
 */
export function registerHttpConventions(app: FastifyInstance): void {
  const parseJson = (request: FastifyRequest, body: string, done: (err: Error | null, value?: unknown) => void) => {
    // An unknown route is a 404 whatever its body (reference §1.2): the body is not read.
    if (request.is404) return done(null, undefined);
    try {
      done(null, parseJsonBody(body));
    } catch (err) {
      done(err as Error);
    }
  };
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson);
  app.addContentTypeParser('*', { parseAs: 'string' }, parseJson);

  app.addHook('preValidation', async (request) => {
    const config = request.routeOptions.config;
    const query = isPlainObject(request.query) ? request.query : {};
    foldPhpArrays(query, arrayFieldsOf(request));
    if (!config.strictLimit) normalisePageQuery(query);
    if (!config.allowNul) {
      refuseNul(request.params, 'Path parameter');
      refuseNul(query, 'Query parameter');
    }
    // A multipart body without a boundary cannot be read by any route that takes one (the form reader would fail
    // with a bare Error, a 500); say so here, once, for all of them.
    const type = request.headers['content-type'];
    if (typeof type === 'string' && /^multipart\//i.test(type) && !/;\s*boundary=/i.test(type)) {
      throw new BadRequestError('Invalid multipart body: the Content-Type header has no boundary.');
    }
    const bodySchema = request.routeOptions.schema?.body as { properties?: Record<string, unknown> } | undefined;
    // No body at all (no content type, so no parser ran) reads as `{}` too, so missing fields are named one by one.
    if (request.body === undefined && bodySchema) request.body = {};
    if (!isPlainObject(request.body)) return;
    const body = config.keepBodyKeys ? request.body : snakeKeys(request.body);
    // phpList merges route, query and body parameters (reference §1.4.3); the body wins on conflict. Only fields the
    // body declares are taken, so pagination and filter parameters stay in the query.
    for (const [key, value] of Object.entries(query)) {
      const name = config.keepBodyKeys ? key : snakeName(key);
      if (bodySchema?.properties && Object.hasOwn(bodySchema.properties, name) && !Object.hasOwn(body, name)) {
        body[name] = value;
      }
    }
    request.body = body;
  });

  // After every preValidation hook, so bodies that route hooks build (multipart forms) are checked as well.
  app.addHook('preHandler', async (request) => {
    if (!request.routeOptions.schema?.body) return;
    const at = findNul(request.body);
    if (at !== null) throw ValidationError.field(at || '_global', NUL_IN_BODY);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-request-id', request.id);
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('application/json')) reply.headers(JSON_SECURITY_HEADERS);
    if (typeof type === 'string' && type.startsWith('text/html')) {
      reply.headers(HTML_SECURITY_HEADERS);
      if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', HTML_CSP);
    }
    return payload;
  });

  const routes: { method: string; pattern: RegExp }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const pattern = new RegExp(`^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`);
    for (const method of methods) routes.push({ method, pattern });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))].filter((m) => m !== 'HEAD');
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

/**
 * A path id read before validation (for hooks that must answer 404 before the body is checked, per the order of checks
 * in ../shared/api/DECISIONS.md § Order of checks). Non-digits are an unknown route (docs/api.md § Transport), as
 * phpList's `\d+` requirement makes them.
 */
export function rawPathId(request: FastifyRequest, name: string): number {
  const value = (request.params as Record<string, string | undefined>)[name];
  if (!value || !/^\d{1,10}$/.test(value) || Number(value) > 2_147_483_647) {
    throw new NotFoundError(routeNotFoundMessage(request));
  }
  return Number(value);
}

/** Path and query values cannot hold NUL (PostgreSQL refuses it in text): 400 naming the parameter. */
function refuseNul(values: unknown, what: string): void {
  if (!isPlainObject(values)) return;
  for (const [name, value] of Object.entries(values)) {
    if (findNul(value) !== null || name.includes('\0')) {
      throw new BadRequestError(`${what} "${name.replace(/\0/g, '\\u0000')}" contains a NUL character (\\u0000).`);
    }
  }
}
