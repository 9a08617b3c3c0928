import type { FastifyRequest } from 'fastify';

/*
 * What is stored about the requester of an open or click: client address (X-Forwarded-For only when TRUST_PROXY
 * says so — Fastify's request.ip), user agent and referer. Bounded in length and stripped of control characters and
 * markup (phpList strips tags too), since they are shown to administrators and never validated by anyone.
 */

const MAX_AGENT = 512;
const MAX_REFERER = 2048;

function clean(value: string | string[] | undefined, max: number): string | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  let out = text.length > max ? text.slice(0, max) : text;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f<]/.test(out)) out = out.replace(/<[^>]*>?/g, '').replace(/[\u0000-\u001f\u007f]/g, ' ');
  return out.trim() || null;
}

export interface RequestDetails {
  readonly ip: string | null;
  readonly userAgent: string | null;
  readonly referer: string | null;
}

export function requestDetails(request: FastifyRequest): RequestDetails {
  return {
    ip: request.ip || null,
    userAgent: clean(request.headers['user-agent'], MAX_AGENT),
    referer: clean(request.headers.referer, MAX_REFERER),
  };
}

/** The first value of a query parameter given once, several times, or not at all. */
export function firstValue(value: unknown): string | undefined {
  const first = Array.isArray(value) ? (value[0] as unknown) : value;
  return typeof first === 'string' ? first : undefined;
}
