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

/**
 * A request path fit for the log: no query string (it can carry e-mail addresses and subscriber ids), and the
 * segments that name a person or carry a credential cut out — an address in the blacklist routes, the signed
 * tokens of unsubscribe and tracked links.
 */
export function pathForLog(url: string): string {
  return (url.split('?')[0] ?? '')
    .replace(/(\/blacklist\/(?:check|info|remove)\/)[^/]+/, '$1…')
    .replace(/(\/unsubscribe\/)[^/]+/, '$1…')
    .replace(/^(\/lt\/)[^/]+/, '$1…');
}

/**
 * Fastify logs every request twice at `info` (received, then completed). One line, written when the answer is
 * sent, says it all: method, path, status and time.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {
    // Left out: the completed line carries the request too.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
