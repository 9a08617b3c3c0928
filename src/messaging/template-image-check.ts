import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolvePublic, type AddressPolicy, type ResolvedAddress } from '../shared/public-address.js';
import { isFullHttpUrl } from './template-html.js';

/** More distinct remote images than this are refused rather than checked (each check is a network request). */
export const MAX_CHECKED_IMAGES = 50;
const CONCURRENCY = 5;
const MAX_REDIRECTS = 3;

/**
 * `check_external_images`: a HEAD request to every remote image must end in 200 (reference §5.15). Each image gets
 * `timeoutMs` in all, redirects included; a redirect is followed only to another http(s) address, at most three
 * times. Returns one message per image that failed, in the order given.
 *
 * The addresses come from whoever edits templates, so the server must not become their port scanner or their way
 * into the local network (issue 17): every host, the first and each redirect's, is resolved and all its addresses
 * must be public (public-address.ts), and the request goes to the address checked, not to a second lookup that
 * could answer differently. Every failure has the same message, so an answer tells nothing about what is there.
 */
export async function checkExternalImages(sources: readonly string[], timeoutMs: number, policy: AddressPolicy): Promise<string[]> {
  const remote = sources.filter(isFullHttpUrl);
  if (remote.length > MAX_CHECKED_IMAGES) {
    return [`Too many images to check: ${remote.length} (at most ${MAX_CHECKED_IMAGES}).`];
  }
  const results: (string | null)[] = new Array<string | null>(remote.length).fill(null);
  let next = 0;
  const worker = async () => {
    while (next < remote.length) {
      const index = next++;
      results[index] = (await reachable(remote[index]!, timeoutMs, policy)) ? null : unreachable(remote[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, remote.length) }, worker));
  return results.filter((r): r is string => r !== null);
}

export const unreachable = (src: string) => `Image "${src}" could not be validated: no 200 answer from a public address.`;

/** Whether the image answers 200 to HEAD, at a public address, within the time, after at most MAX_REDIRECTS. */
async function reachable(src: string, timeoutMs: number, policy: AddressPolicy): Promise<boolean> {
  const signal = AbortSignal.timeout(timeoutMs);
  let url = new URL(src);
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
      const address = await resolvePublic(url.hostname, policy);
      signal.throwIfAborted();
      const { status, location } = await head(url, address, signal);
      if (status >= 300 && status < 400 && location) {
        url = new URL(location, url);
        continue;
      }
      return status === 200;
    }
    return false;
  } catch {
    return false;
  }
}

/** One HEAD request to `url`, connecting to `address` (already checked) whatever the name would resolve to now. */
function head(url: URL, address: ResolvedAddress, signal: AbortSignal): Promise<{ status: number; location: string | null }> {
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  };
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'HEAD', lookup: pinned, signal, agent: false }, (res: IncomingMessage) => {
      res.resume();
      const location = res.headers.location;
      resolve({ status: res.statusCode ?? 0, location: typeof location === 'string' ? location : null });
    });
    req.on('error', reject);
    req.end();
  });
}
