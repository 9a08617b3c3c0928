import { randomBytes } from 'node:crypto';
import { SettingsStore } from '../src/settings/index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.js';
import type { AppContext } from '../src/context.js';
import { createDatabase } from '../src/db/client.js';
import { loadSecrets, migrate } from '../src/db/migrate.js';
import {
  attachments,
  attributeDefinitions,
  attributeOptions,
  campaigns,
  listCampaigns,
  lists,
  subscriberAttributeValues,
  subscribers,
  subscriptions,
  templates,
} from '../src/db/schema/index.js';
import { createMailer } from '../src/mail/mailer.js';
import { attachmentStorage } from '../src/messaging/attachment-storage.js';
import { loadRecipients, type RecipientData } from '../src/sending/compose/index.js';
import { createTransport } from '../src/sending/transport.js';
import { BounceCounts } from '../src/messaging/bounce-counts.js';
import { EventBuffer } from '../src/tracking/event-buffer.js';

/*
 * A campaign ready to compile, in an in-memory PGlite, for the measurements that run the composer (and the signer)
 * in their own process: 1,000 subscribers on a list with a `First name` and a `City` (select) value each, a template,
 * the campaign with an HTML body and optionally an attachment. `recipients(n)` makes n distinct recipients from the
 * loaded ones (fresh ids, addresses and unique ids; every tenth text-only), as a real send has.
 */

const SEEDED = 1000;

export interface CampaignContent {
  readonly template: string;
  readonly html: string;
  readonly subject: string;
  readonly footer: string;
  readonly from: string;
  readonly attachmentBytes: number;
}

export interface ComposeFixture {
  readonly ctx: AppContext;
  readonly campaignId: number;
  /** Milliseconds to load the 1,000 seeded recipients (one batch). */
  readonly loadMs: number;
  recipients(n: number): RecipientData[];
}

export async function withComposeFixture<T>(content: CampaignContent, work: (fixture: ComposeFixture) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'compose-fixture-'));
  const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: 'https://lists.example.com', LOG_LEVEL: 'warn' });
  const database = await createDatabase({ databaseUrl: '', dataDir: 'memory://' });
  await migrate(database);
  const db = database.db;
  const ctx: AppContext = {
    config,
    db,
    // Not started: the configuration's values, as on a database where no setting was ever stored.
    settings: new SettingsStore(db, config, Fastify({ logger: false }).log),
    mailer: createMailer(config),
    transport: createTransport(config),
    log: Fastify({ logger: { level: 'warn' } }).log,
    secrets: await loadSecrets(db),
    events: new EventBuffer({ db, log: Fastify({ logger: false }).log, ...config.tracking }),
    bounceCounts: new BounceCounts({ db, log: Fastify({ logger: false }).log }),
  };
  try {
    const [list] = await db.insert(lists).values({ name: 'Garden News' }).returning();
    const [first] = await db.insert(attributeDefinitions).values({ name: 'First name', type: 'textline' }).returning();
    const [city] = await db.insert(attributeDefinitions).values({ name: 'City', type: 'select' }).returning();
    const options = await db
      .insert(attributeOptions)
      .values(['Amsterdam', 'Zürich', 'Lisboa', 'Kraków'].map((name, i) => ({ definitionId: city!.id, name, listOrder: i })))
      .returning();
    const rows = await db
      .insert(subscribers)
      .values(Array.from({ length: SEEDED }, (_, i) => ({ email: `reader${i}@example.org`, uniqueId: randomBytes(16).toString('hex') })))
      .returning({ id: subscribers.id });
    const ids = rows.map((r) => r.id);
    await db.insert(subscriptions).values(ids.map((subscriberId) => ({ listId: list!.id, subscriberId })));
    await db
      .insert(subscriberAttributeValues)
      .values([
        ...ids.map((subscriberId, i) => ({ subscriberId, definitionId: first!.id, value: i % 5 === 0 ? '' : `Reader ${i}` })),
        ...ids.map((subscriberId, i) => ({ subscriberId, definitionId: city!.id, value: String(options[i % options.length]!.id) })),
      ]);

    const [template] = await db.insert(templates).values({ title: 'Newsletter', content: content.template }).returning();
    const [campaign] = await db
      .insert(campaigns)
      .values({
        uniqueId: randomBytes(18).toString('hex'),
        templateId: template!.id,
        subject: content.subject,
        body: content.html,
        footer: content.footer,
        fromField: content.from,
        sendFormat: 'html',
      })
      .returning();
    await db.insert(listCampaigns).values({ campaignId: campaign!.id, listId: list!.id });
    if (content.attachmentBytes > 0) {
      const stored = await attachmentStorage({ config, db }).put(Readable.from([randomBytes(content.attachmentBytes)]));
      await db.insert(attachments).values({
        campaignId: campaign!.id,
        filename: 'Seed catalogue 2027.pdf',
        mimeType: 'application/pdf',
        size: stored.size,
        contentHash: stored.hash,
      });
    }

    const started = performance.now();
    const loaded = await loadRecipients(ctx, ids);
    const loadMs = performance.now() - started;
    const recipients = (n: number) =>
      Array.from({ length: n }, (_, i) => {
        const base = loaded[i % loaded.length]!;
        return { ...base, subscriberId: 100_000 + i, email: `r${i}@example.net`, uniqueId: randomBytes(16).toString('hex'), htmlEmail: i % 10 !== 0 };
      });
    return await work({ ctx, campaignId: campaign!.id, loadMs, recipients });
  } finally {
    await ctx.transport.close();
    await ctx.mailer.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
