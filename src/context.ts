import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { AppDb } from './db/client.js';
import type { Mailer } from './mail/index.js';
import type { BounceCounts } from './messaging/index.js';
import type { SettingsStore } from './settings/index.js';
import type { Transport } from './sending/index.js';
import type { EventBuffer } from './tracking/index.js';

/** What services need from the running application. Built once in buildApp and passed explicitly. */
export interface AppContext {
  readonly config: Config;
  /** The one database handle (Drizzle, plus prepared reads); its lifecycle stays with buildApp. */
  readonly db: AppDb;
  /** The settings that apply now (src/settings): what the environment sets, else the console, else the defaults. */
  readonly settings: SettingsStore;
  readonly mailer: Mailer;
  /** Campaign mail: finished messages to SMTP (round-robin over SMTP_URL's servers) or the outbox. */
  readonly transport: Transport;
  readonly log: FastifyBaseLogger;
  /** Installation secrets from the database (see db/schema/system.ts). */
  readonly secrets: {
    readonly linkToken: string;
    /** Links with a smaller id still take the 32-bit click tokens mailed before issue 17 (tracking/link-token.ts). */
    readonly legacyLinkTokensBelow: number;
  };
  /** Opens and clicks on their way to the database (tracking/event-buffer.ts); `flush()` writes them now. */
  readonly events: EventBuffer;
  /** Folds recorded bounces into the campaign and rule figures (messaging/bounce-counts.ts); `fold()` does it now. */
  readonly bounceCounts: BounceCounts;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
