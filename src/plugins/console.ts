import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where `npm run build:console` writes the console (web/dist), found from src/plugins and dist/plugins alike. */
export const CONSOLE_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

// The console's own pages may only load what the service serves: no CDN, no inline script. Inline styles are
// allowed because React and uPlot set style attributes.
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'";

interface Asset {
  body: Buffer;
  type: string;
  /** The build's precompressed copies (`<file>.br`, `<file>.gz`), when it wrote them. */
  br?: Buffer;
  gzip?: Buffer;
}

/** The encodings we hold, best first, and the file suffix of each. */
const ENCODINGS = [
  ['br', 'br'],
  ['gzip', 'gz'],
] as const;

/**
 * The best encoding the client accepts (RFC 9110 §12.5.3) among those the asset has, or null for the file as it is.
 * `q=0` refuses an encoding; `*` stands for any not named. Written without a regular expression over the header.
 */
export function chooseEncoding(acceptEncoding: string | undefined, asset: Pick<Asset, 'br' | 'gzip'>): 'br' | 'gzip' | null {
  if (!acceptEncoding) return null;
  const weights = new Map<string, number>();
  for (const item of acceptEncoding.slice(0, 1000).split(',')) {
    const [name = '', ...params] = item.split(';').map((p) => p.trim());
    const q = params.find((p) => p.toLowerCase().startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (name) weights.set(name.toLowerCase(), Number.isFinite(weight) ? weight : 0);
  }
  let best: 'br' | 'gzip' | null = null;
  let bestWeight = 0;
  for (const [encoding] of ENCODINGS) {
    if (!asset[encoding]) continue;
    const weight = weights.get(encoding) ?? weights.get('*') ?? 0;
    if (weight > bestWeight) [best, bestWeight] = [encoding, weight];
  }
  return best;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * Serves the admin console at /admin/ and redirects / there. The build is read into memory once at start (a few
 * hundred KB): fingerprinted files under assets/ are cached for a year, everything else, index.html above all, is
 * revalidated on every load so a new build is picked up. Any other path under /admin/ answers index.html, so the
 * console's own addresses can be bookmarked and reloaded. Without a build, /admin/ says how to make one. Text files
 * go out brotli- or gzip-compressed when the client accepts it, from the copies the build wrote beside them
 * (web/vite.config.ts): nothing is compressed per request.
 */
export async function registerConsole(app: FastifyInstance, options: { dir?: string } = {}): Promise<void> {
  const dir = options.dir ?? CONSOLE_DIR;
  const assets = new Map<string, Asset>();
  if (existsSync(join(dir, 'index.html'))) {
    const files = filesUnder(dir);
    const present = new Set(files);
    for (const file of files) {
      // The compressed copies are served in place of their file, never as files of their own.
      if (file.endsWith('.br') || file.endsWith('.gz')) continue;
      const path = relative(dir, file).split('\\').join('/');
      const asset: Asset = { body: readFileSync(file), type: TYPES[extname(file)] ?? 'application/octet-stream' };
      for (const [encoding, suffix] of ENCODINGS) if (present.has(`${file}.${suffix}`)) asset[encoding] = readFileSync(`${file}.${suffix}`);
      assets.set(path, asset);
    }
  }
  const index = assets.get('index.html');

  const send = (request: FastifyRequest, reply: FastifyReply, asset: Asset, immutable: boolean) => {
    const encoding = chooseEncoding(request.headers['accept-encoding'], asset);
    const body = encoding ? asset[encoding]! : asset.body;
    // Every answer says it depends on Accept-Encoding, so that a cache never hands brotli to a client without it.
    if (asset.br || asset.gzip) reply.header('vary', 'Accept-Encoding');
    if (encoding) reply.header('content-encoding', encoding);
    return reply
      .header('content-type', asset.type)
      .header('content-length', body.length)
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', CSP)
      .header('referrer-policy', 'same-origin')
      .send(body);
  };

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!index) {
      return reply
        .code(503)
        .header('content-type', 'text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .send('The admin console is not built. Run `npm run build` (or `npm run build:console`), then restart the service.\n');
    }
    const path = ((request.params as { '*'?: string })['*'] ?? '').split('?')[0] ?? '';
    const asset = assets.get(path);
    if (asset && path !== 'index.html') return send(request, reply, asset, path.startsWith('assets/'));
    // A missing fingerprinted file is a real 404 (a stale page asking for an old build), not the app.
    if (path.startsWith('assets/')) return reply.code(404).header('content-type', 'text/plain; charset=utf-8').send('Not found\n');
    return send(request, reply, index, false);
  };
  // `/admin` and `/admin/` are one route (ignoreTrailingSlash); the wildcard takes everything below.
  app.get('/admin', { schema: { hide: true } }, handler);
  app.get('/admin/*', { schema: { hide: true } }, handler);
}
