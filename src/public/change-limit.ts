import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendPage } from './headers.js';
import type { Lang } from '../shared/i18n.js';
import { tooManyRequestsPage } from './preferences.pages.js';
import { takeChange } from './preferences.service.js';

/**
 * PREFERENCES_CLIENT_LIMIT changes per client in 10 minutes; over it, sends the 429 page with Retry-After and
 * answers true. (A boolean, not the reply: a reply is thenable, and awaiting it would wait for the send.)
 */
export async function limited(request: FastifyRequest, reply: FastifyReply, lang: Lang): Promise<boolean> {
  const slot = await takeChange(request.server.ctx, request.ip || null);
  if (slot.granted) return false;
  const seconds = Math.max(1, Math.ceil(slot.retryAfter));
  await sendPage(reply, 429, tooManyRequestsPage(lang, seconds), { 'retry-after': String(seconds) });
  return true;
}
