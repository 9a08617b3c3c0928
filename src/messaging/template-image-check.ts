import { isFullHttpUrl } from './template-html.js';

/** More distinct remote images than this are refused rather than checked (each check is a network request). */
export const MAX_CHECKED_IMAGES = 50;
const CONCURRENCY = 5;
const MAX_REDIRECTS = 3;

/**
 * `check_external_images`: a HEAD request to every remote image must end in 200 (reference §5.15). Each image gets
 * `timeoutMs` in all, redirects included; a redirect is followed only to another http(s) address, at most three
 * times. Returns one message per image that failed, in the order given.
 */
export async function checkExternalImages(sources: readonly string[], timeoutMs: number): Promise<string[]> {
  const remote = sources.filter(isFullHttpUrl);
  if (remote.length > MAX_CHECKED_IMAGES) {
    return [`Too many images to check: ${remote.length} (at most ${MAX_CHECKED_IMAGES}).`];
  }
  const results: (string | null)[] = new Array<string | null>(remote.length).fill(null);
  let next = 0;
  const worker = async () => {
    while (next < remote.length) {
      const index = next++;
      results[index] = await checkOne(remote[index]!, timeoutMs);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, remote.length) }, worker));
  return results.filter((r): r is string => r !== null);
}

async function checkOne(src: string, timeoutMs: number): Promise<string | null> {
  const signal = AbortSignal.timeout(timeoutMs);
  let url = src;
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const response = await fetch(url, { method: 'HEAD', redirect: 'manual', signal });
      await response.body?.cancel();
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        const target = new URL(location, url);
        if (target.protocol !== 'http:' && target.protocol !== 'https:') {
          return `Image "${src}" could not be validated: it redirects to a non-HTTP address.`;
        }
        url = target.href;
        continue;
      }
      return response.status === 200 ? null : `Image "${src}" does not exist (HTTP ${response.status}).`;
    }
    return `Image "${src}" could not be validated: more than ${MAX_REDIRECTS} redirects.`;
  } catch (err) {
    const reason = signal.aborted ? `no answer within ${timeoutMs} ms` : describe(err);
    return `Image "${src}" could not be validated: ${reason}.`;
  }
}

/** A network error in words, without stack or internals: fetch hides the useful part in `cause`. */
function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (cause && typeof cause.code === 'string') return `connection failed (${cause.code})`;
  return 'connection failed';
}
