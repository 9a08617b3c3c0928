import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { DkimKeyError, loadDkimKeys, type DkimKey } from './shared/dkim-keys.js';

/**
 * Every environment variable the service reads, with its default. The same list, with the same defaults,
 * is in README.md and .env.example; `test/config.test.ts` keeps the three in step.
 */
export const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  DATABASE_URL: Type.String({ default: '', pattern: '^(|postgres(ql)?://.+)$' }),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  PGLITE_MAX_REQUESTS: Type.Integer({ minimum: 0, maximum: 100_000, default: 64 }),
  PGLITE_MAX_WAIT_MS: Type.Integer({ minimum: 0, maximum: 600_000, default: 2000 }),
  PGLITE_SHARED_BUFFERS_MB: Type.Integer({ minimum: 1, maximum: 1024, default: 16 }),
  REQUEST_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 300_000 }),
  REQUEST_IDLE_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 20_000 }),
  CLIENT_MAX_REQUESTS: Type.Integer({ minimum: 0, maximum: 100_000, default: 32 }),
  PUBLIC_URL: Type.String({ default: 'http://localhost:8080', pattern: '^https?://[^\\s]+$' }),
  SESSION_TTL: Type.Integer({ minimum: 60, maximum: 31_536_000, default: 3600 }),
  ADMIN_LOGIN: Type.String({ default: '' }),
  ADMIN_PASSWORD: Type.String({ default: '' }),
  ADMIN_EMAIL: Type.String({ default: '' }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  TRUST_PROXY: Type.String({ default: 'false' }),
  CORS_ORIGIN: Type.String({ default: '' }),
  // One server, or several separated by commas (campaign mail is spread over them round-robin).
  SMTP_URL: Type.String({ default: '', pattern: '^(|smtps?://[^,\\s]+(\\s*,\\s*smtps?://[^,\\s]+)*)$' }),
  MAIL_FROM: Type.String({ minLength: 3, default: 'Mailroom <mailroom@localhost>' }),
  // `domain:selector:/path/to/key.pem`, comma-separated: DKIM keys (shared/dkim-keys.ts). Empty: mail goes out unsigned.
  DKIM_KEYS: Type.String({ default: '' }),
  // Threads that DKIM-sign campaign mail beside the sending loop; 0: chosen for the machine (mail/dkim/pool.ts).
  DKIM_THREADS: Type.Integer({ minimum: 0, maximum: 64, default: 0 }),
  BODY_LIMIT: Type.Integer({ minimum: 1024, default: 1_048_576 }),
  UPLOAD_LIMIT: Type.Integer({ minimum: 1024, default: 52_428_800 }),
  LOGIN_MAX_FAILURES: Type.Integer({ minimum: 1, default: 10 }),
  LOGIN_FAILURE_WINDOW: Type.Integer({ minimum: 1, default: 900 }),
  PASSWORD_RESET_URL: Type.String({ default: '' }),
  SEND_WORKER: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
  // System mail queue (src/mail/mail-queue.ts): poll interval, first retry delay (doubling, at most 1 h), give-up age.
  MAIL_QUEUE_POLL_MS: Type.Integer({ minimum: 10, maximum: 60_000, default: 1000 }),
  MAIL_QUEUE_RETRY_MS: Type.Integer({ minimum: 10, maximum: 3_600_000, default: 30_000 }),
  MAIL_QUEUE_GIVE_UP: Type.Integer({ minimum: 1, maximum: 2_592_000, default: 172_800 }),
  SEND_BATCH_SIZE: Type.Integer({ minimum: 1, maximum: 5000, default: 200 }),
  SEND_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 1000, default: 64 }),
  SEND_LEASE_SECONDS: Type.Integer({ minimum: 3, maximum: 86_400, default: 10 }),
  SEND_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 100, default: 5 }),
  SEND_RETRY_DELAY: Type.Integer({ minimum: 0, maximum: 86_400, default: 60 }),
  SEND_FAILURE_PAUSE: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 20 }),
  SEND_RATE: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  SEND_DOMAIN_RATE: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  SEND_DOMAIN_WINDOW: Type.Integer({ minimum: 1, maximum: 86_400, default: 60 }),
  SEND_POLL_MS: Type.Integer({ minimum: 10, maximum: 60_000, default: 500 }),
  SEND_RELAY_RETRY_MS: Type.Integer({ minimum: 10, maximum: 3_600_000, default: 5000 }),
  SEND_RELAY_RETRY_MAX_MS: Type.Integer({ minimum: 10, maximum: 86_400_000, default: 300_000 }),
  ATTACHMENT_MAX_SIZE: Type.Integer({ minimum: 1, default: 26_214_400 }),
  MEDIA_MAX_SIZE: Type.Integer({ minimum: 1, maximum: 104_857_600, default: 5_242_880 }),
  ATTACHMENT_STORE: Type.Union([Type.Literal(''), Type.Literal('database'), Type.Literal('disk')], { default: '' }),
  IMAGE_CHECK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 5000 }),
  // For tests only: lets check_external_images reach a loopback server. Never on in production.
  IMAGE_CHECK_ALLOW_LOOPBACK: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'off' }),
  // Webhook endpoints on loopback, private or link-local addresses: refused unless 1 (tests, closed networks).
  WEBHOOK_ALLOW_PRIVATE: Type.Union([Type.Literal('0'), Type.Literal('1')], { default: '0' }),
  FORWARD_EMAIL_COUNT: Type.Integer({ minimum: 1, maximum: 100, default: 1 }),
  FORWARD_PERSONAL_NOTE_SIZE: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 500 }),
  FORWARD_RATE_LIMIT: Type.Integer({ minimum: 1, maximum: 100_000, default: 5 }),
  // Preference centre (src/public/preferences.*): link lifetime in days (0: never expires), changes per client per 10 minutes.
  PREFERENCES_LINK_DAYS: Type.Integer({ minimum: 0, maximum: 36_500, default: 365 }),
  PREFERENCES_CLIENT_LIMIT: Type.Integer({ minimum: 1, maximum: 100_000, default: 60 }),
  // The preference-centre link shown on the unsubscribe pages: days, not a year (whoever holds a forwarded mail can open them).
  PREFERENCES_PAGE_LINK_DAYS: Type.Integer({ minimum: 1, maximum: 90, default: 7 }),
  SUBSCRIBE_PAGE_CLIENT_LIMIT: Type.Integer({ minimum: 1, maximum: 100_000, default: 10 }),
  SEGMENT_TIMEOUT_MS: Type.Integer({ minimum: 1, maximum: 600_000, default: 10_000 }),
  // Whether a subscriber created without saying (import, console, sign-up form) gets HTML mail (html_email).
  SUBSCRIBER_HTML_DEFAULT: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
  // How often each process looks for settings changed in the console (src/settings/settings.store.ts).
  SETTINGS_POLL_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 3000 }),
  TRACKING_FLUSH_MS: Type.Integer({ minimum: 5, maximum: 10_000, default: 50 }),
  TRACKING_MACHINE_SECONDS: Type.Integer({ minimum: 0, maximum: 3600, default: 2 }),
  TRACKING_RATE: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 20 }),
  // Envelope sender (Return-Path) of all mail; empty: the From address. Should be an address the bounce mailbox reads.
  BOUNCE_ADDRESS: Type.String({ default: '', pattern: '^(|[^\\s@<>()\\[\\],;:"\\\\]+@[^\\s@<>()\\[\\],;:"\\\\]+\\.[^\\s@<>()\\[\\],;:"\\\\]+)$' }),
  // Empty: POST /api/v2/bounces/inbound answers 404. Otherwise a secret of 16 characters or more.
  // 1: campaign mail's envelope sender carries its delivery, signed (VERP: mail/verp.ts); needs BOUNCE_ADDRESS.
  BOUNCE_VERP: Type.Union([Type.Literal('0'), Type.Literal('1')], { default: '0' }),
  BOUNCE_INBOUND_TOKEN: Type.String({ default: '', pattern: '^(|[\\x21-\\x7e]{16,512})$' }),
  METRICS_TOKEN: Type.String({ default: '', pattern: '^(|[\\x21-\\x7e]{16,512})$' }),
  BOUNCE_MAX_SIZE: Type.Integer({ minimum: 1024, maximum: 209_715_200, default: 10_485_760 }),
  BOUNCE_READ_TIMEOUT_MS: Type.Integer({ minimum: 1, maximum: 60_000, default: 2000 }),
  BOUNCE_MAILBOX_URL: Type.String({ default: '', pattern: '^(|imaps?://[^\\s]+)$' }),
  BOUNCE_POLL_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 60 }),
  BOUNCE_MAILBOX_PROCESSED: Type.String({ minLength: 1, maxLength: 200, default: 'Processed' }),
  BOUNCE_UNCONFIRM_THRESHOLD: Type.Integer({ minimum: 0, maximum: 1000, default: 3 }),
  BOUNCE_BLACKLIST_THRESHOLD: Type.Integer({ minimum: 0, maximum: 1000, default: 5 }),
});

type Env = Static<typeof EnvSchema>;

/** The admin console's password-reset page, where PASSWORD_RESET_URL points by default (web/src/views/PasswordReset.tsx). */
export const PASSWORD_RESET_PAGE = '/admin/password-reset';

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Empty: embedded PGlite in `dataDir`. */
  readonly databaseUrl: string;
  readonly databasePoolSize: number;
  readonly dataDir: string;
  /** Embedded PGlite: requests handled at once beyond which new ones get 503 (0: no limit). See plugins/overload.ts. */
  readonly pgliteMaxRequests: number;
  /** Embedded PGlite: how long its oldest unanswered call may have waited before new requests get 503 (0: no bound). */
  readonly pgliteMaxWaitMs: number;
  /**
   * Embedded PGlite: its shared_buffers in MB. PGlite's own 128MB were a third of the service's memory in an import of
   * a million rows, for a few percent of its speed (issue 24; README "Configuration").
   */
  readonly pgliteSharedBuffersMb: number;
  /** What one client may hold of the service while it sends a request and waits for the answer (plugins/request-limits.ts). */
  readonly requests: RequestLimitsConfig;
  /** Base of every link written into mail, without a trailing slash. */
  readonly publicUrl: string;
  /** Session lifetime in seconds, fixed from login. */
  readonly sessionTtl: number;
  readonly admin: { readonly login: string; readonly password: string; readonly email: string };
  readonly logLevel: string;
  /** Passed to Fastify's `trustProxy`: false, true, a hop count, or addresses/CIDRs. */
  readonly trustProxy: boolean | number | string;
  /** Allowed CORS origins; empty disables CORS. `*` allows any. */
  readonly corsOrigins: readonly string[];
  readonly smtpUrl: string;
  readonly mailFrom: string;
  /** BOUNCE_ADDRESS: envelope sender (Return-Path) of campaign and system mail; empty: the From address. */
  readonly bounceAddress: string;
  /** BOUNCE_VERP=1: each campaign message's envelope sender is `<bounce local>+<signed delivery>@<bounce domain>`. */
  readonly bounceVerp: boolean;
  /** DKIM keys read from DKIM_KEYS' files at start; campaign and system mail from their domains is signed. */
  readonly dkim: readonly DkimKey[];
  /** DKIM_THREADS: signing threads of a sending process; 0: chosen for the machine (defaultSigningThreads). */
  readonly dkimThreads: number;
  readonly bodyLimit: number;
  readonly uploadLimit: number;
  readonly loginMaxFailures: number;
  readonly loginFailureWindow: number;
  /** Where the password-reset mail points; the token is appended. */
  readonly passwordResetUrl: string;
  readonly sendWorker: boolean;
  /** The system-mail queue's knobs (MAIL_QUEUE_*); see mail/mail-queue.ts. */
  readonly mailQueue: MailQueueConfig;
  /** The campaign sender's knobs (SEND_*); see sending/worker.ts. */
  readonly sending: SendingConfig;
  /** Largest campaign attachment in bytes (larger → 413). */
  readonly attachmentMaxSize: number;
  /** Largest media-library image in bytes (MEDIA_MAX_SIZE). */
  readonly mediaMaxSize: number;
  /**
   * Where attachment bytes live: `database` (chunks in the shared database, so every process on one PostgreSQL can
   * send them) or `disk` (`DATA_DIR/attachments`, one process's). ATTACHMENT_STORE, by default database exactly
   * when DATABASE_URL is set.
   */
  readonly attachmentStore: 'database' | 'disk';
  /** How long a template's `check_external_images` waits for each image's HEAD answer. */
  readonly imageCheckTimeoutMs: number;
  /** Tests only: check_external_images may request loopback addresses (every other non-public one stays refused). */
  readonly imageCheckAllowLoopback: boolean;
  /** Webhook endpoints may be on loopback, private and link-local addresses (WEBHOOK_ALLOW_PRIVATE=1). */
  readonly webhookAllowPrivate: boolean;
  /** Forward to a friend (reference §5.17). */
  readonly forward: ForwardConfig;
  /** The preference centre and the other public subscriber pages of issue 13 (src/public). */
  readonly preferences: PreferencesConfig;
  /**
   * Days the preference-centre link on the unsubscribe pages stays good (PREFERENCES_PAGE_LINK_DAYS): a link of its
   * own, shorter-lived than the mail's `[PREFERENCESURL]` (docs/api.md "Consent").
   */
  readonly preferencesPageLinkDays: number;
  /** Sign-ups one client address may post to the public subscribe pages in 10 minutes (more → 429). */
  readonly subscribePageClientLimit: number;
  /** PostgreSQL: how long a segment's count or page may run before it is stopped (422). See segment.service.ts. */
  readonly segmentTimeoutMs: number;
  /**
   * SUBSCRIBER_HTML_DEFAULT: `html_email` of a subscriber created without one given (import, console, sign-up form;
   * `POST /subscribers` keeps phpList's false). Read through subscription's newSubscriberHtmlEmail().
   */
  readonly subscriberHtmlDefault: boolean;
  /**
   * Which of the variables a setting of the console can replace (MAIL_FROM, SMTP_URL, SUBSCRIBER_HTML_DEFAULT,
   * PUBLIC_URL) the process was given: those settings are read-only, the variable wins (src/settings).
   */
  readonly settingsFromEnv: readonly string[];
  /** How often each process looks for settings changed through another (SETTINGS_POLL_MS). */
  readonly settingsPollMs: number;
  /** Open and click recording (tracking/event-buffer.ts). */
  readonly tracking: TrackingConfig;
  /** Bounce processing (messaging/bounce-processing.ts, bounce-mailbox.ts, bounce-inbound.routes.ts). */
  readonly bounces: BounceConfig;
  /** Bearer token GET /metrics asks for; empty: it answers only to loopback clients (plugins/metrics.ts). */
  readonly metricsToken: string;
}

export interface RequestLimitsConfig {
  /** A whole request, headers and body, must have arrived within this many milliseconds (node's requestTimeout): 408. */
  readonly timeoutMs: number;
  /**
   * The headers must have arrived within this (node's headersTimeout), and a body that stops arriving for this long is
   * cut off: the connection is closed.
   */
  readonly idleTimeoutMs: number;
  /** Requests one client address (an IPv6 /64) may have in the service at once; more → 429 (0: no limit). */
  readonly clientMaxRequests: number;
}

export interface BounceConfig {
  /** Secret of POST /bounces/inbound; empty: the endpoint answers 404. */
  readonly inboundToken: string;
  /** Largest bounce message in bytes, over HTTP (larger → 413) and read from the mailbox. */
  readonly maxSize: number;
  /**
   * CPU time reading one message may take (default 2000 ms); past it the message counts as unreadable: 422 over HTTP,
   * flagged and left in the mailbox, never retried. Optional so that tests may build this object by hand.
   */
  readonly readTimeoutMs?: number;
  /** `imap://user:pass@host:port/INBOX` or `imaps://…`; empty: no mailbox is read. */
  readonly mailboxUrl: string;
  readonly pollSeconds: number;
  /** Folder processed messages are moved to (created if missing). */
  readonly processedFolder: string;
  /** Consecutive bounces that unconfirm a subscriber (0: never). */
  readonly unconfirmThreshold: number;
  /** Consecutive bounces that blacklist a subscriber's address (0: never). */
  readonly blacklistThreshold: number;
}

export interface MailQueueConfig {
  /** How often an idle drainer looks for due mail (a request in the same process wakes it at once). */
  readonly pollMs: number;
  /** The wait after a mail's first failed attempt; it doubles with each attempt, up to an hour. */
  readonly retryMs: number;
  /** A mail still unsent this long after it was queued is given up (logged without personal data). */
  readonly giveUpSeconds: number;
  /** How long a drainer holds the mails it claimed (longer than nodemailer's longest timeout). */
  readonly leaseSeconds: number;
}

export interface PreferencesConfig {
  /** Days a `[PREFERENCESURL]` link stays good (0: for ever); older ones show the "expired link" page. */
  readonly linkDays: number;
  /** Changes (POSTs) one client address may make on the subscriber pages in any 10 minutes (more → 429 page). */
  readonly clientLimit: number;
}

export interface ForwardConfig {
  /** Distinct recipients per request (phpList's FORWARD_EMAIL_COUNT). */
  readonly emailCount: number;
  /**
   * The personal note may have twice this many characters; 0: unlimited (phpList's FORWARD_PERSONAL_NOTE_SIZE, whose
   * default is 0). Ours is 500 (1,000 characters): the forwarded copy goes out DKIM-signed under the campaign's From.
   */
  readonly personalNoteSize: number;
  /** Forwarded copies per subscriber in 24 hours. */
  readonly rateLimit: number;
}

export interface TrackingConfig {
  /** How often buffered opens and clicks are written, in milliseconds: what a crash can lose at most. */
  readonly flushMs: number;
  /** Opens and clicks this many seconds or less after the delivery was sent are a machine's (scanners, prefetch). */
  readonly machineSeconds: number;
  /**
   * Opens, and clicks, of one delivery (a subscriber's copy of a campaign) recorded per second per client address
   * (bursts of 5 s worth); old click tokens checked per second per address. 0: unlimited.
   */
  readonly ratePerAddress: number;
}

export interface SendingConfig {
  /** Deliveries claimed per batch. */
  readonly batchSize: number;
  /** Messages in flight per worker process. */
  readonly concurrency: number;
  /**
   * How long a claimed batch belongs to its worker before others may take it back; the worker renews it every third
   * of this while it sends, so it only runs out when the worker died or stalled.
   */
  readonly leaseSeconds: number;
  /** Attempts of a temporarily failing delivery before it is marked failed. */
  readonly maxAttempts: number;
  /** Wait before the first retry in seconds; doubles with each attempt. */
  readonly retryDelaySeconds: number;
  /** Consecutive failures that suspend a campaign (0: never). */
  readonly failurePause: number;
  /** Messages per second, all workers together (0: unlimited). */
  readonly rate: number;
  /** Messages per recipient domain per `domainWindowSeconds`, all workers together (0: unlimited). */
  readonly domainRate: number;
  readonly domainWindowSeconds: number;
  /** How often an idle worker looks for due work. */
  readonly pollMs: number;
  /** First wait before trying a relay that could not be used again, in ms; doubles with each try (relay-state.ts). */
  readonly relayRetryMs: number;
  /** The longest wait between tries of such a relay, in ms. */
  readonly relayRetryMaxMs: number;
}

export class ConfigError extends Error {}

/** Reads, validates and freezes the configuration. Throws ConfigError naming the offending variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value.trim();
  }
  // Before the defaults are filled in (Value.Default writes them into `raw`).
  const settingsFromEnv = Object.freeze(SETTINGS_VARIABLES.filter((name) => raw[name] !== undefined));
  const converted = Value.Default(EnvSchema, Value.Convert(EnvSchema, raw)) as Env;
  const firstError = Value.Errors(EnvSchema, converted).First();
  if (firstError) {
    const name = firstError.path.replace(/^\//, '');
    throw new ConfigError(`Invalid environment variable ${name}=${shownValue(name, raw[name])}: ${firstError.message}`);
  }
  if (converted.ADMIN_LOGIN && !converted.ADMIN_PASSWORD) {
    throw new ConfigError('ADMIN_LOGIN is set but ADMIN_PASSWORD is not: set both, or neither.');
  }
  if (converted.ADMIN_PASSWORD && converted.ADMIN_PASSWORD.length < 8) {
    throw new ConfigError('Invalid environment variable ADMIN_PASSWORD: it must have 8 characters or more.');
  }
  if (converted.REQUEST_IDLE_TIMEOUT_MS > converted.REQUEST_TIMEOUT_MS) {
    throw new ConfigError('REQUEST_IDLE_TIMEOUT_MS may not be longer than REQUEST_TIMEOUT_MS: the headers are part of the request.');
  }
  if (converted.BOUNCE_VERP === '1' && !converted.BOUNCE_ADDRESS) {
    throw new ConfigError('BOUNCE_VERP=1 needs BOUNCE_ADDRESS: the VERP address is made from it (bounces+<token>@domain).');
  }
  for (const url of converted.SMTP_URL.split(',')
    .map((u) => u.trim())
    .filter(Boolean)) {
    // A misspelt ?tls= would otherwise fall back to opportunistic TLS without a word.
    let tls: string | null;
    try {
      tls = new URL(url).searchParams.get('tls');
    } catch {
      throw new ConfigError(`Invalid environment variable SMTP_URL: ${JSON.stringify(url.replace(/\/\/[^@/]*@/, '//…@'))} is not a URL`);
    }
    if (tls !== null && tls !== 'off' && tls !== 'required') {
      throw new ConfigError(`Invalid environment variable SMTP_URL: ?tls= takes off or required, got ${JSON.stringify(tls)}`);
    }
  }
  const publicUrl = converted.PUBLIC_URL.replace(/\/+$/, '');
  let dkim: DkimKey[] = [];
  try {
    if (!overrides.dkim) dkim = loadDkimKeys(converted.DKIM_KEYS);
  } catch (err) {
    if (err instanceof DkimKeyError) throw new ConfigError(`Invalid environment variable DKIM_KEYS: ${err.message}`);
    throw err;
  }
  return Object.freeze({
    port: converted.PORT,
    host: converted.HOST,
    databaseUrl: converted.DATABASE_URL,
    databasePoolSize: converted.DATABASE_POOL_SIZE,
    dataDir: converted.DATA_DIR,
    pgliteMaxRequests: converted.PGLITE_MAX_REQUESTS,
    pgliteMaxWaitMs: converted.PGLITE_MAX_WAIT_MS,
    pgliteSharedBuffersMb: converted.PGLITE_SHARED_BUFFERS_MB,
    requests: Object.freeze({
      timeoutMs: converted.REQUEST_TIMEOUT_MS,
      idleTimeoutMs: converted.REQUEST_IDLE_TIMEOUT_MS,
      clientMaxRequests: converted.CLIENT_MAX_REQUESTS,
    }),
    publicUrl,
    sessionTtl: converted.SESSION_TTL,
    admin: Object.freeze({
      login: converted.ADMIN_LOGIN,
      password: converted.ADMIN_PASSWORD,
      email: converted.ADMIN_EMAIL,
    }),
    logLevel: converted.LOG_LEVEL,
    trustProxy: parseTrustProxy(converted.TRUST_PROXY),
    corsOrigins: Object.freeze(
      converted.CORS_ORIGIN.split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    ),
    smtpUrl: converted.SMTP_URL,
    mailFrom: converted.MAIL_FROM,
    bounceAddress: converted.BOUNCE_ADDRESS,
    bounceVerp: converted.BOUNCE_VERP === '1',
    dkim: Object.freeze(dkim),
    dkimThreads: converted.DKIM_THREADS,
    bodyLimit: converted.BODY_LIMIT,
    uploadLimit: converted.UPLOAD_LIMIT,
    loginMaxFailures: converted.LOGIN_MAX_FAILURES,
    loginFailureWindow: converted.LOGIN_FAILURE_WINDOW,
    passwordResetUrl: converted.PASSWORD_RESET_URL || `${publicUrl}${PASSWORD_RESET_PAGE}?token=`,
    sendWorker: converted.SEND_WORKER === 'on',
    mailQueue: Object.freeze({
      pollMs: converted.MAIL_QUEUE_POLL_MS,
      retryMs: converted.MAIL_QUEUE_RETRY_MS,
      giveUpSeconds: converted.MAIL_QUEUE_GIVE_UP,
      leaseSeconds: 600,
    }),
    sending: Object.freeze({
      batchSize: converted.SEND_BATCH_SIZE,
      concurrency: converted.SEND_CONCURRENCY,
      leaseSeconds: converted.SEND_LEASE_SECONDS,
      maxAttempts: converted.SEND_MAX_ATTEMPTS,
      retryDelaySeconds: converted.SEND_RETRY_DELAY,
      failurePause: converted.SEND_FAILURE_PAUSE,
      rate: converted.SEND_RATE,
      domainRate: converted.SEND_DOMAIN_RATE,
      domainWindowSeconds: converted.SEND_DOMAIN_WINDOW,
      pollMs: converted.SEND_POLL_MS,
      relayRetryMs: converted.SEND_RELAY_RETRY_MS,
      relayRetryMaxMs: Math.max(converted.SEND_RELAY_RETRY_MS, converted.SEND_RELAY_RETRY_MAX_MS),
    }),
    attachmentMaxSize: converted.ATTACHMENT_MAX_SIZE,
    mediaMaxSize: converted.MEDIA_MAX_SIZE,
    attachmentStore: converted.ATTACHMENT_STORE || (converted.DATABASE_URL ? 'database' : 'disk'),
    imageCheckTimeoutMs: converted.IMAGE_CHECK_TIMEOUT_MS,
    imageCheckAllowLoopback: converted.IMAGE_CHECK_ALLOW_LOOPBACK === 'on',
    webhookAllowPrivate: converted.WEBHOOK_ALLOW_PRIVATE === '1',
    subscribePageClientLimit: converted.SUBSCRIBE_PAGE_CLIENT_LIMIT,
    subscriberHtmlDefault: converted.SUBSCRIBER_HTML_DEFAULT === 'on',
    settingsFromEnv,
    settingsPollMs: converted.SETTINGS_POLL_MS,
    preferences: Object.freeze({ linkDays: converted.PREFERENCES_LINK_DAYS, clientLimit: converted.PREFERENCES_CLIENT_LIMIT }),
    preferencesPageLinkDays: converted.PREFERENCES_PAGE_LINK_DAYS,
    forward: Object.freeze({
      emailCount: converted.FORWARD_EMAIL_COUNT,
      personalNoteSize: converted.FORWARD_PERSONAL_NOTE_SIZE,
      rateLimit: converted.FORWARD_RATE_LIMIT,
    }),
    segmentTimeoutMs: converted.SEGMENT_TIMEOUT_MS,
    tracking: Object.freeze({
      flushMs: converted.TRACKING_FLUSH_MS,
      machineSeconds: converted.TRACKING_MACHINE_SECONDS,
      ratePerAddress: converted.TRACKING_RATE,
    }),
    metricsToken: converted.METRICS_TOKEN,
    bounces: Object.freeze({
      inboundToken: converted.BOUNCE_INBOUND_TOKEN,
      maxSize: converted.BOUNCE_MAX_SIZE,
      readTimeoutMs: converted.BOUNCE_READ_TIMEOUT_MS,
      mailboxUrl: converted.BOUNCE_MAILBOX_URL,
      pollSeconds: converted.BOUNCE_POLL_SECONDS,
      processedFolder: converted.BOUNCE_MAILBOX_PROCESSED,
      unconfirmThreshold: converted.BOUNCE_UNCONFIRM_THRESHOLD,
      blacklistThreshold: converted.BOUNCE_BLACKLIST_THRESHOLD,
    }),
    ...overrides,
  });
}

/** The variables whose value a console setting replaces when they are not set (src/settings/settings.store.ts). */
const SETTINGS_VARIABLES = ['MAIL_FROM', 'SMTP_URL', 'SUBSCRIBER_HTML_DEFAULT', 'PUBLIC_URL'];

/** Variables whose whole value is a secret: an error names them but never prints them. */
const SECRET_VARIABLES = new Set(['ADMIN_PASSWORD', 'BOUNCE_INBOUND_TOKEN', 'METRICS_TOKEN']);

/** A value as an error message may print it: secrets hidden, URL passwords masked (error messages reach logs). */
function shownValue(name: string, value: unknown): string {
  if (SECRET_VARIABLES.has(name)) return '(hidden)';
  return JSON.stringify(typeof value === 'string' ? maskUrlPasswords(value) : value);
}

/**
 * `scheme://user:***@host`, for each comma-separated URL, even a malformed one (that is when it is printed): what
 * lies between the user's colon and the last `@` is replaced. Index arithmetic, no regular expression.
 */
export function maskUrlPasswords(value: string): string {
  return value
    .split(',')
    .map((part) => {
      const at = part.lastIndexOf('@');
      if (at < 0) return part;
      const slashes = part.indexOf('//');
      const colon = part.indexOf(':', slashes >= 0 && slashes < at ? slashes + 2 : 0);
      return colon >= 0 && colon < at ? `${part.slice(0, colon + 1)}***${part.slice(at)}` : part;
    })
    .join(',');
}

function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
