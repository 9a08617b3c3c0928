import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { organisationBrand, type Brand } from './brand.js';

/*
 * Headers of every public HTML page. The pages run no script at all (`script-src 'none'`), load styles only from
 * this service (the shared stylesheet) plus the one inline `<style>` of the page's own look, allowed by its hash,
 * images from here and from the page's logo origin, and post forms only to this service. Links in these pages carry
 * credentials (confirm codes, signed tokens), so: no referrer, no caching, no indexing. The frame headers keep them
 * out of other sites' frames (clickjacking a one-button unsubscribe form).
 */

export interface PagePolicy {
  /** Contents of inline `<style>` elements, allowed by their SHA-256. */
  readonly inlineStyles?: readonly string[];
  /** Origins images may come from besides this service (a logo). */
  readonly imageOrigins?: readonly string[];
}

export const styleHash = (css: string) => `'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'`;

export function contentSecurityPolicy(policy: PagePolicy = {}): string {
  const styles = ["'self'", ...(policy.inlineStyles ?? []).map(styleHash)];
  // An origin is a serialised URL origin (scheme://host[:port]): nothing in it can end the directive.
  const images = ["'self'", 'data:', ...(policy.imageOrigins ?? [])];
  return [
    "default-src 'none'",
    "script-src 'none'",
    `style-src ${styles.join(' ')}`,
    `img-src ${images.join(' ')}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export function pageHeaders(policy: PagePolicy = {}): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': contentSecurityPolicy(policy),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-robots-tag': 'noindex',
  };
}

/** A rendered public page: its HTML and what its CSP must allow. */
export interface PublicPage {
  readonly html: string;
  readonly policy: PagePolicy;
  /** The same page with the organisation's name and logo (the layout's pages); sendPage applies the current ones. */
  readonly withBrand?: (brand: Brand) => PublicPage;
}

export function sendPage(reply: FastifyReply, status: number, page: PublicPage, extraHeaders: Record<string, string> = {}) {
  const sent = page.withBrand ? page.withBrand(organisationBrand(reply.server.ctx)) : page;
  return reply
    .code(status)
    .headers({ ...pageHeaders(sent.policy), ...extraHeaders })
    .send(sent.html);
}
