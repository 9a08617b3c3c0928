import { chmodSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';

/*
 * The embedded database belongs to the running service (one process may open DATA_DIR), so `npm run backup` asks
 * that process for a copy through a Unix socket in DATA_DIR: no network port, and only someone who can already read
 * DATA_DIR (and so the database's files) can ask. The copy is PGlite's data-directory dump, taken in one step on the
 * database thread, so it is a single moment of the database while the service goes on serving.
 */

export const CONTROL_SOCKET = 'control.sock';
export const DATA_DIR_PATH = '/data-dir';

/** Serves `GET /data-dir` (a tar of the embedded database) on DATA_DIR/control.sock; answers the stop. */
export async function serveDataDirDumps(dataDir: string, dump: () => Promise<Blob>, log: FastifyBaseLogger): Promise<() => Promise<void>> {
  const path = join(dataDir, CONTROL_SOCKET);
  // This process holds DATA_DIR's lock, so a socket file left here is a dead process's.
  rmSync(path, { force: true });
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== DATA_DIR_PATH) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    dump().then(
      async (blob) => {
        response.writeHead(200, { 'content-type': 'application/x-tar', 'content-length': blob.size });
        response.end(Buffer.from(await blob.arrayBuffer()));
        log.info({ bytes: blob.size }, 'database copy handed to a backup');
      },
      (err: unknown) => {
        log.error({ err }, 'database copy for a backup failed');
        response.writeHead(503, { 'content-type': 'text/plain' }).end('The database could not be copied; see the service log.\n');
      },
    );
  });
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, resolve));
  } catch (err) {
    // A DATA_DIR path too long for a socket (about 107 bytes) or a file system without sockets: backups of the
    // running service are then unavailable, which is no reason to refuse to start.
    log.warn({ err }, `cannot listen on ${path}: npm run backup needs the service stopped`);
    return async () => {};
  }
  chmodSync(path, 0o600);
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
      rmSync(path, { force: true });
    });
}
