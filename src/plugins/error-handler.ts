import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { isDatabaseUnreachable } from '../db/client.js';
import { HttpError, ServiceUnavailableError, ValidationError, driverCode } from '../shared/errors.js';
import { formatValidationErrors } from '../shared/validation.js';
import { routeNotFoundMessage } from './http.js';

/**
 * The one place errors become responses. Typed errors keep their status and message; validator failures
 * become the 422 shape; Fastify's own 4xx (body too large, bad media type) keep theirs. Everything else is a
 * 500 with a generic message and the request id, and its detail goes to the log: only typed errors
 * (shared/errors.ts) say something to the client, since any other error's message (a plain Error's included)
 * may carry internals such as a path, a statement or a value.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.validation) {
      if (error.validationContext === 'params') {
        return reply.code(404).send({ message: routeNotFoundMessage(request) });
      }
      const errors = formatValidationErrors(error.validation as never);
      return reply.code(422).send({ message: 'Validation failed', errors });
    }
    if (error instanceof ValidationError) {
      return reply.code(422).send({ message: error.message, errors: error.errors });
    }
    if (error instanceof HttpError) return sendHttpError(reply, error);
    if (isDatabaseUnreachable(error)) {
      // Not the request's fault, and over in a moment (the pool reconnects by itself): tell the client to retry.
      request.log.warn({ err: error }, 'database unreachable: answered 503');
      return sendHttpError(reply, new ServiceUnavailableError('The database is unreachable: try again shortly.', DATABASE_RETRY_SECONDS));
    }
    if (driverCode(error) === '23505') {
      // A uniqueness race the service's own check could not see (two writers at once).
      request.log.info({ err: error }, 'unique violation answered as 409');
      return reply.code(409).send({ message: 'A record with these values already exists.' });
    }
    const status = error.statusCode;
    if (status && status >= 400 && status < 500) {
      return reply.code(status).send({ message: clientErrorMessage(error) });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ message: `Internal server error (request ${request.id})` });
  });
}

function sendHttpError(reply: FastifyReply, error: HttpError): FastifyReply {
  return reply.code(error.statusCode).headers(error.headers).send({ message: error.message });
}

/** Retry-After while the database is unreachable: the pool reconnects within a second once it is back. */
const DATABASE_RETRY_SECONDS = 5;

function clientErrorMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
      return `Request body is too large: ${error.message}`;
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return `Unsupported content type: ${error.message}`;
    default:
      return error.message;
  }
}
