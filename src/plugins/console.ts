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
 * console's own addresses can be bookmarked and reloaded. Without a build, /admin/ says how to make one.
 */
export async function registerConsole(app: FastifyInstance, options: { dir?: string } = {}): Promise<void> {
  const dir = options.dir ?? CONSOLE_DIR;
  const assets = new Map<string, Asset>();
  if (existsSync(join(dir, 'index.html'))) {
    for (const file of filesUnder(dir)) {
      const path = relative(dir, file).split('\\').join('/');
      assets.set(path, { body: readFileSync(file), type: TYPES[extname(file)] ?? 'application/octet-stream' });
    }
  }
  const index = assets.get('index.html');

  const send = (reply: FastifyReply, asset: Asset, immutable: boolean) =>
    reply
      .header('content-type', asset.type)
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', CSP)
      .header('referrer-policy', 'same-origin')
      .send(asset.body);

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
    if (asset && path !== 'index.html') return send(reply, asset, path.startsWith('assets/'));
    // A missing fingerprinted file is a real 404 (a stale page asking for an old build), not the app.
    if (path.startsWith('assets/')) return reply.code(404).header('content-type', 'text/plain; charset=utf-8').send('Not found\n');
    return send(reply, index, false);
  };
  // `/admin` and `/admin/` are one route (ignoreTrailingSlash); the wildcard takes everything below.
  app.get('/admin', { schema: { hide: true } }, handler);
  app.get('/admin/*', { schema: { hide: true } }, handler);
}
