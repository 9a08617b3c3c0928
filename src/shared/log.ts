import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/*
 * What an error looks like in the log. A failed query's error (Drizzle's DrizzleQueryError) carries the statement's
 * parameters in its message and stack — e-mail addresses, subscriber ids, tokens — and the standard serializer would
 * write them out. This one keeps the statement, the driver's code and message (PostgreSQL's message names the
 * constraint, not the values; its `detail`, which holds values, is left out) and drops the parameters.
 */

interface LoggableError extends Error {
  code?: string;
  query?: string;
  params?: unknown;
}

const PARAMS = /\nparams: [\s\S]*?(?=\n\s+at |$)/;

function withoutParams(text: string | undefined): string | undefined {
  return text?.replace(PARAMS, '\nparams: [not logged]');
}

export function serializeError(value: Error): { type: string; message: string; stack: string; [key: string]: unknown } {
  const err = value as LoggableError;
  const cause = err.cause instanceof Error ? (err.cause as LoggableError) : undefined;
  return {
    type: err.name,
    message: withoutParams(err.message) ?? '',
    stack: withoutParams(err.stack) ?? '',
    ...(err.code ? { code: err.code } : {}),
    ...(cause ? { cause: { type: cause.name, message: withoutParams(cause.message), ...(cause.code ? { code: cause.code } : {}) } } : {}),
  };
}

/*
 * What a request line says of its path. No query string ever (it carries e-mail addresses, subscriber uids, tracking
 * `u=`, tokens). Of a route's path parameters only those its schema declares integer (ids) are written; every other
 * parameter (a link token, a uid, an address, a file name) shows as its name, `:token`, whatever the route: a new route
 * with a credential in its path cannot forget to hide it. A path that matched no route keeps only its segments that
 * cannot be a credential (digits, lower-case words), the rest cut to `…`.
 */

interface LoggedRequest {
  readonly url: string;
  readonly params?: unknown;
  readonly routeOptions?: { readonly url?: string; readonly schema?: { readonly params?: unknown } };
}

/** Names of the path parameters a route's schema declares integer: the only ones written into the log. */
function integerParams(schema: unknown): ReadonlySet<string> {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties ?? {};
  return new Set(Object.entries(properties).flatMap(([name, field]) => (field.type === 'integer' ? [name] : [])));
}

/** A request's path fit for the log (see above). */
export function pathForLog(request: LoggedRequest): string {
  const pattern = request.routeOptions?.url;
  const path = request.url.split('?')[0] ?? '';
  if (!pattern) return unmatchedPath(path);
  const ints = integerParams(request.routeOptions?.schema?.params);
  const params = (request.params ?? {}) as Record<string, unknown>;
  return pattern.replace(/:([A-Za-z0-9_]+)/g, (whole, name: string) => {
    const value = params[name];
    return ints.has(name) && /^\d+$/.test(String(value)) ? String(value) : whole;
  });
}

/** Digits, a lower-case word (`subscribe-pages`, `favicon.ico`) or the API version: never a token or a uid. */
const HARMLESS_SEGMENT = /^(?:\d+|[a-z][a-z._-]{0,63}|v\d)$/;

function unmatchedPath(path: string): string {
  return path
    .split('/')
    .map((segment) => (segment === '' || HARMLESS_SEGMENT.test(segment) ? segment : '…'))
    .join('/');
}

/** Body fields and headers that carry a credential, wherever a log call puts them (pino's redact paths). */
export const REDACTED_LOG_PATHS = [
  'req.headers.authorization',
  'req.headers["php-auth-pw"]',
  'req.headers.cookie',
  ...['password', 'new_password', 'current_password', 'key', 'token', 'uid'].flatMap((name) => [name, `*.${name}`]),
];

/**
 * Fastify logs every request twice at `info` (received, then completed). One line, written when the answer is
 * sent, says it all: method, path, status and time.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {
    // Left out: the completed line carries the request too.
  }

  /** Fastify's own line names the raw URL, query string included. */
  override routeNotFound(request: FastifyRequest): void {
    request.log.info({ req: request }, 'route not found');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
