import type { FastifyRequest } from 'fastify';
import type { HistoryOrigin } from './subscriber-history.schemas.js';

/** Where a change came from, for the subscriber's history. */
export function originOf(request: FastifyRequest): HistoryOrigin {
  const agent = request.headers['user-agent'];
  return { ip: request.ip || null, userAgent: typeof agent === 'string' && agent ? agent : null };
}
