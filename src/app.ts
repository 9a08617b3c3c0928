import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import cors from '@fastify/cors';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { randomUUID } from 'node:crypto';
import { trustProxyOption } from './shared/client-address.js';
import { OneLinePerRequest, pathForLog, REDACTED_LOG_PATHS, serializeError } from './shared/log.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { configuredDatabase, createDatabase, type Database } from './db/client.js';
import { serveDataDirDumps } from './db/snapshot/control-socket.js';
import { registerMetrics } from './plugins/metrics.js';
import { loadSecrets, migrate } from './db/migrate.js';
import { adminAttributeDefinitionRoutes } from './identity/admin-attribute-definition.routes.js';
import { adminAttributeValueRoutes } from './identity/admin-attribute-value.routes.js';
import { administratorRoutes } from './identity/administrator.routes.js';
import { passwordResetRoutes } from './identity/password-reset.routes.js';
import { sessionRoutes } from './identity/session.routes.js';
import { subscribePagePublicRoutes } from './subscription/subscribe-page-public.routes.js';
import { subscribePageRoutes } from './subscription/subscribe-page.routes.js';
import { subscriberHistoryRoutes } from './subscription/subscriber-history.routes.js';
import { subscriberBulkRoutes } from './subscription/subscriber-bulk.routes.js';
import { attributeColumnRoutes } from './subscription/attribute-columns.routes.js';
import { subscriberExportRoutes } from './subscription/subscriber-export.routes.js';
import { subscriberImportRoutes } from './subscription/subscriber-import.routes.js';
import { subscriberRoutes } from './subscription/subscriber.routes.js';
import { collectEmailSearchMetrics, registerConfirmationMail } from './subscription/index.js';
import { collectMailQueueMetrics, settingsMailer, stopMailQueues, type Mailer } from './mail/index.js';
import { SettingsStore } from './settings/index.js';
import { settingsRoutes } from './settings/settings.routes.js';
import { collectSendMetrics, settingsTransport, type Transport } from './sending/index.js';
import { testSendRoutes } from './sending/test-send.routes.js';
import { campaignPreviewRoutes } from './sending/campaign-preview.routes.js';
import { campaignSendRoutes } from './sending/campaign-send.routes.js';
import { campaignStatusRoutes } from './sending/campaign-status.routes.js';
import { registerAuth } from './plugins/auth.js';
import { registerConsole } from './plugins/console.js';
import { registerErrorHandler } from './plugins/error-handler.js';
import { registerHttpConventions } from './plugins/http.js';
import { registerOpenApi } from './plugins/openapi.js';
import { registerOverloadShedding } from './plugins/overload.js';
import { registerRequestLimits } from './plugins/request-limits.js';
import { attributeDefinitionRoutes } from './subscription/attribute-definition.routes.js';
import { attributeValueRoutes } from './subscription/attribute-value.routes.js';
import { blacklistRoutes } from './subscription/blacklist.routes.js';
import { listMemberRoutes } from './subscription/list-member.routes.js';
import { listRoutes } from './subscription/list.routes.js';
import { Message, ValidationFailure } from './shared/schemas.js';
import { deferredSchemaCompilers } from './shared/schema-compilers.js';
import { systemRoutes } from './system.routes.js';
import { segmentRoutes } from './segments/segment.routes.js';
import { attachmentDownloadRoutes } from './messaging/attachment-download.routes.js';
import { attachmentRoutes } from './messaging/attachment.routes.js';
import { mediaPublicRoutes } from './messaging/media-public.routes.js';
import { mediaRoutes } from './messaging/media.routes.js';
import { bounceRuleRoutes } from './messaging/bounce-rule.routes.js';
import { webhookRoutes } from './webhooks/webhook.routes.js';
import { collectWebhookMetrics } from './webhooks/index.js';
import { bounceRoutes } from './messaging/bounce.routes.js';
import { bounceInboundRoutes } from './messaging/bounce-inbound.routes.js';
import { BounceCounts } from './messaging/index.js';
import { templateRoutes } from './messaging/template.routes.js';
import { campaignRoutes } from './messaging/campaign.routes.js';
import { listCampaignRoutes } from './messaging/list-campaign.routes.js';
import { unsubscribeRoutes } from './public/unsubscribe.routes.js';
import { forwardRoutes } from './sending/forward.routes.js';
import { publicAssetRoutes } from './public/assets.routes.js';
import { signupRoutes } from './public/signup.routes.js';
import { confirmRoutes } from './public/confirm.routes.js';
import { embedRoutes } from './public/embed.routes.js';
import { preferencesRoutes } from './public/preferences.routes.js';
import { addressChangeRoutes } from './public/address-change.routes.js';
import { publicForwardRoutes } from './public/forward.routes.js';
import { EventBuffer } from './tracking/index.js';
import { clickRoutes } from './public/click.routes.js';
import { openPixelRoutes } from './tracking/open.routes.js';
import { campaignStatsRoutes } from './tracking/campaign-stats.routes.js';
import { statisticsRoutes } from './tracking/statistics.routes.js';
import { subscriberGrowthRoutes } from './tracking/subscriber-growth.routes.js';

export interface BuildOptions {
  config: Config;
  /** An open database (tests pass a clone of the golden one); otherwise one is created from the config. */
  database?: Database;
  mailer?: Mailer;
  /** Campaign mail; otherwise built from the config (SMTP_URL). */
  transport?: Transport;
  logger?: FastifyServerOptions['logger'];
  /** Where the service's own logger writes (default stdout); tests read the log this way. */
  logStream?: { write(line: string): void };
  /** Apply migrations at start (default true; tests start from an already-migrated database). */
  migrate?: boolean;
}

/**
 * Builds the whole service: plugins, the public pages and the API areas (identity, subscription, segments, messaging,
 * sending, tracking). What the server and the tests both start.
 */
export async function buildApp(options: BuildOptions): Promise<FastifyInstance> {
  const { config } = options;
  const schemas = deferredSchemaCompilers();
  const app = Fastify({
    schemaController: { compilersFactory: { buildSerializer: schemas.buildSerializer } },
    logger: options.logger ?? {
      level: config.logLevel,
      ...(options.logStream ? { stream: options.logStream } : {}),
      redact: REDACTED_LOG_PATHS,
      // No personal data or credentials in the log: see shared/log.ts.
      serializers: {
        req: (req) => ({ method: req.method, url: pathForLog(req as never), remoteAddress: req.ip }),
        err: serializeError,
      },
    },
    trustProxy: trustProxyOption(config.trustProxy),
    bodyLimit: config.bodyLimit,
    forceCloseConnections: 'idle',
    // What a client may take to send its request (plugins/request-limits.ts, REQUEST_TIMEOUT_MS and
    // REQUEST_IDLE_TIMEOUT_MS): Fastify turns node's requestTimeout off unless given one. node checks both every
    // connectionsCheckingInterval, a quarter of the idle timeout here (node's 30 s would let a short one run long).
    // No connectionTimeout (socket inactivity): a report or an import can be silent for longer while it computes, and
    // a client that stalls is cut off by the two above. keepAliveTimeout stays Fastify's 72 s, longer than the idle
    // timeouts of common load balancers (60 s), so they never send on a connection this end is closing.
    requestTimeout: config.requests.timeoutMs,
    keepAliveTimeout: 72_000,
    http: {
      requestTimeout: config.requests.timeoutMs,
      headersTimeout: config.requests.idleTimeoutMs,
      connectionsCheckingInterval: Math.min(30_000, Math.ceil(config.requests.idleTimeoutMs / 4)),
    },
    logController: new OneLinePerRequest(),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    ajv: { customOptions: { strict: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const database = options.database ?? (await createDatabase(configuredDatabase(config)));
  if (options.migrate ?? true) await migrate(database);
  const settings = new SettingsStore(database.db, config, app.log);
  await settings.start(config.settingsPollMs);
  const mailer = options.mailer ?? settingsMailer(settings, config);
  const transport =
    options.transport ??
    settingsTransport(settings, config, {
      onUnsigned: (domain) => app.log.warn({ domain }, 'no DKIM key for this From domain: its campaign mail goes out unsigned'),
    });
  const secrets = await loadSecrets(database.db);
  const events = new EventBuffer({ db: database.db, log: app.log, ...config.tracking });
  events.start();
  const bounceCounts = new BounceCounts({ db: database.db, log: app.log });
  bounceCounts.start();
  const ctx: AppContext = { config, db: database.db, settings, mailer, transport, log: app.log, secrets, events, bounceCounts };
  app.decorate('ctx', ctx);
  // Mail queued by reference is rendered by the area that owns what it refers to (mail/mail-renderers.ts).
  registerConfirmationMail(ctx);
  // The embedded database in a DATA_DIR of its own: `npm run backup` copies it through this process.
  const stopDumps =
    database.dumpDataDir && !options.database && !config.dataDir.startsWith('memory://')
      ? await serveDataDirDumps(config.dataDir, () => database.dumpDataDir!(), app.log)
      : null;
  app.addHook('onClose', async () => {
    await stopDumps?.();
    settings.close();
    // Answered opens and clicks are written before the database closes (the server has stopped taking requests).
    await events.close();
    // So are the counts of recorded bounces (the bounce mailbox was stopped before app.close()).
    await bounceCounts.close();
    // Drainers of the mail queue started on this app (server.ts, worker.ts, tests) finish their mails in flight.
    await stopMailQueues(ctx);
    await mailer.close();
    await transport.close();
    await database.close();
  });

  app.setValidatorCompiler(schemas.validatorCompiler);
  app.decorate('compileSchemas', schemas.compileAll);
  app.addSchema(Message);
  app.addSchema(ValidationFailure);
  registerHttpConventions(app);
  registerErrorHandler(app);
  registerRequestLimits(app, config);
  registerOverloadShedding(app, config, database);
  registerAuth(app);
  await registerOpenApi(app);
  // After the OpenAPI plugin, which documents only the routes added after it.
  registerMetrics(app, {
    config,
    database,
    backlog: () => events.pending,
    collectors: [
      () => collectSendMetrics(ctx),
      () => collectWebhookMetrics(ctx),
      () => collectMailQueueMetrics(ctx),
      () => collectEmailSearchMetrics(ctx),
    ],
  });
  if (config.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: config.corsOrigins.includes('*') ? true : [...config.corsOrigins],
      methods: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
      allowedHeaders: ['Content-Type', 'Authorization', 'Origin', 'Accept', 'php-auth-pw'],
      exposedHeaders: ['X-Content-Type-Options', 'Content-Security-Policy', 'X-Frame-Options', 'X-Request-Id'],
      maxAge: 3600,
    });
  }

  await app.register(systemRoutes);
  // The admin console (web/) at /admin/, and / redirecting there.
  await registerConsole(app);
  // Public subscriber-facing routes, also served without the prefix (../shared/api/DECISIONS.md § Paths).
  await app.register(attachmentDownloadRoutes, { alias: true });
  // The media library's images, at the addresses written into mail and templates.
  await app.register(mediaPublicRoutes);
  await app.register(openPixelRoutes, { alias: true });
  await app.register(clickRoutes, { root: true });
  // The pages subscribers see (src/public/): their stylesheet, sign-up forms.
  await app.register(publicAssetRoutes);
  await app.register(signupRoutes);
  await app.register(preferencesRoutes);
  await app.register(addressChangeRoutes);
  await app.register(publicForwardRoutes);
  // The API areas, registered explicitly so the route table stays greppable.
  await app.register(
    async (api) => {
      await api.register(settingsRoutes);
      await api.register(sessionRoutes);
      await api.register(administratorRoutes);
      await api.register(adminAttributeDefinitionRoutes);
      await api.register(adminAttributeValueRoutes);
      await api.register(passwordResetRoutes);
      // subscription area (segments and the sign-up form embed sit with it)
      await api.register(listRoutes);
      await api.register(listMemberRoutes);
      await api.register(blacklistRoutes);
      await api.register(subscriberRoutes);
      await api.register(subscriberHistoryRoutes);
      await api.register(subscriberImportRoutes);
      await api.register(subscriberExportRoutes);
      await api.register(subscriberBulkRoutes);
      await api.register(attributeColumnRoutes);
      await api.register(attributeDefinitionRoutes);
      await api.register(attributeValueRoutes);
      await api.register(subscribePageRoutes);
      await api.register(subscribePagePublicRoutes);
      await api.register(segmentRoutes);
      await api.register(embedRoutes);
      // The pages the sign-up mails link to (src/public/), where their links have always pointed.
      await api.register(confirmRoutes);

      // messaging area
      await api.register(campaignRoutes);
      await api.register(listCampaignRoutes);
      await api.register(templateRoutes);
      await api.register(attachmentRoutes);
      await api.register(mediaRoutes);
      await api.register(attachmentDownloadRoutes);
      await api.register(bounceRoutes);
      await api.register(bounceRuleRoutes);
      await api.register(webhookRoutes);
      await api.register(bounceInboundRoutes);

      // sending area
      await api.register(testSendRoutes);
      await api.register(campaignPreviewRoutes);
      await api.register(campaignSendRoutes);
      await api.register(campaignStatusRoutes);
      await api.register(unsubscribeRoutes);
      await api.register(forwardRoutes);

      // tracking area
      await api.register(openPixelRoutes);
      await api.register(clickRoutes);
      await api.register(statisticsRoutes);
      await api.register(subscriberGrowthRoutes);
      await api.register(campaignStatsRoutes);
    },
    { prefix: '/api/v2' },
  );
  return app;
}
