import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Database, Db } from './db/client.js';
import type { Mailer } from './mail/mailer.js';

/** What services need from the running application. Built once in buildApp and passed explicitly. */
export interface AppContext {
  readonly config: Config;
  readonly database: Database;
  readonly db: Db;
  readonly mailer: Mailer;
  readonly log: FastifyBaseLogger;
  /** Installation secrets from the database (see db/schema/system.ts). */
  readonly secrets: { readonly linkToken: string };
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
