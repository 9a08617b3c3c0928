import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ConfigError, EnvSchema, loadConfig } from '../src/config.js';

const root = new URL('../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');
const SCHEMA_DEFAULTS: Record<string, string> = Object.fromEntries(
  Object.entries(EnvSchema.properties).map(([name, schema]) => [name, String((schema as { default: unknown }).default)]),
);

describe('loadConfig', () => {
  test('defaults', () => {
    assert.deepEqual(loadConfig({}), {
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: '',
      databasePoolSize: 10,
      dataDir: './data',
      pgliteMaxRequests: 64,
      pgliteMaxWaitMs: 2000,
      pgliteSharedBuffersMb: 16,
      requests: { timeoutMs: 300_000, idleTimeoutMs: 20_000, clientMaxRequests: 32 },
      publicUrl: 'http://localhost:8080',
      sessionTtl: 3600,
      settingsFromEnv: [],
      settingsPollMs: 3000,
      admin: { login: '', password: '', email: '' },
      logLevel: 'info',
      trustProxy: false,
      corsOrigins: [],
      smtpUrl: '',
      mailFrom: 'Mailroom <mailroom@localhost>',
      mailQueue: { pollMs: 1000, retryMs: 30_000, giveUpSeconds: 172_800, leaseSeconds: 600 },
      bounceAddress: '',
      bounceVerp: false,
      dkim: [],
      dkimThreads: 0,
      bodyLimit: 1_048_576,
      uploadLimit: 52_428_800,
      loginMaxFailures: 10,
      loginFailureWindow: 900,
      passwordResetUrl: 'http://localhost:8080/admin/password-reset?token=',
      sendWorker: true,
      sending: {
        batchSize: 200,
        concurrency: 64,
        leaseSeconds: 10,
        maxAttempts: 5,
        retryDelaySeconds: 60,
        failurePause: 20,
        rate: 0,
        domainRate: 0,
        domainWindowSeconds: 60,
        pollMs: 500,
        relayRetryMs: 5000,
        relayRetryMaxMs: 300_000,
      },
      attachmentMaxSize: 26_214_400,
      mediaMaxSize: 5_242_880,
      attachmentStore: 'disk',
      imageCheckTimeoutMs: 5000,
      imageCheckAllowLoopback: false,
      webhookAllowPrivate: false,
      forward: { emailCount: 1, personalNoteSize: 500, rateLimit: 5 },
      preferences: { linkDays: 365, clientLimit: 60 },
      preferencesPageLinkDays: 7,
      subscribePageClientLimit: 10,
      segmentTimeoutMs: 10_000,
      subscriberHtmlDefault: true,
      tracking: { flushMs: 50, machineSeconds: 2, ratePerAddress: 20 },
      metricsToken: '',
      bounces: {
        inboundToken: '',
        maxSize: 10_485_760,
        readTimeoutMs: 2000,
        mailboxUrl: '',
        pollSeconds: 60,
        processedFolder: 'Processed',
        unconfirmThreshold: 3,
        blacklistThreshold: 5,
      },
    });
  });

  test('reads and converts values', () => {
    const config = loadConfig({
      PORT: ' 3000 ',
      PUBLIC_URL: 'https://lists.example.com/',
      TRUST_PROXY: '2',
      CORS_ORIGIN: 'https://a.example, https://b.example',
      SEND_WORKER: 'off',
      ADMIN_LOGIN: 'boss',
      ADMIN_PASSWORD: 'long enough',
      DATABASE_URL: 'postgres://u:p@db:5432/x',
    });
    assert.equal(config.port, 3000);
    assert.equal(config.publicUrl, 'https://lists.example.com');
    assert.equal(config.passwordResetUrl, 'https://lists.example.com/admin/password-reset?token=');
    assert.equal(config.trustProxy, 2);
    assert.deepEqual(config.corsOrigins, ['https://a.example', 'https://b.example']);
    assert.equal(config.sendWorker, false);
    assert.deepEqual(config.admin, { login: 'boss', password: 'long enough', email: '' });
    assert.equal(config.databaseUrl, 'postgres://u:p@db:5432/x');
    assert.ok(Object.isFrozen(config));
  });

  for (const [name, value] of [
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['PUBLIC_URL', 'ftp://x'],
    ['SESSION_TTL', '5'],
    ['LOG_LEVEL', 'loud'],
    ['SMTP_URL', 'http://x'],
    ['SEND_WORKER', 'maybe'],
    ['BODY_LIMIT', '1.5'],
    ['DATABASE_POOL_SIZE', '0'],
    ['PGLITE_SHARED_BUFFERS_MB', '0'],
    ['PGLITE_SHARED_BUFFERS_MB', '16MB'],
  ] as const) {
    test(`${name}=${value} is a ConfigError naming the variable`, () => {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (err: unknown) => err instanceof ConfigError && err.message.includes(name),
      );
    });
  }

  for (const [name, value, shown] of [
    ['SMTP_URL', 'smtp://mailer:s3cret-pw@smtp.example.com:587 x', '"smtp://mailer:***@smtp.example.com:587 x"'],
    ['SMTP_URL', 'smtp://a:one@h1,smtp//b:two@h2', '"smtp://a:***@h1,smtp//b:***@h2"'],
    ['DATABASE_URL', 'mysql://root:s3cret-pw@db/x', '"mysql://root:***@db/x"'],
    ['BOUNCE_MAILBOX_URL', 'pop3://bounces:s3cret-pw@mail.example.com', '"pop3://bounces:***@mail.example.com"'],
    ['BOUNCE_INBOUND_TOKEN', 's3cret-pw', '(hidden)'],
  ] as const) {
    test(`a malformed ${name} is reported without its password`, () => {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (err: unknown) =>
          err instanceof ConfigError &&
          err.message.startsWith(`Invalid environment variable ${name}=${shown}: `) &&
          !/s3cret|one@|two@/.test(err.message),
      );
    });
  }

  test('ADMIN_LOGIN without ADMIN_PASSWORD, or with a short one, throws', () => {
    assert.throws(
      () => loadConfig({ ADMIN_LOGIN: 'boss' }),
      (err: unknown) => err instanceof ConfigError && /ADMIN_PASSWORD/.test(err.message),
    );
    assert.throws(
      () => loadConfig({ ADMIN_LOGIN: 'boss', ADMIN_PASSWORD: 'short' }),
      (err: unknown) => err instanceof ConfigError && /ADMIN_PASSWORD/.test(err.message),
    );
  });
});

describe('documented configuration', () => {
  test('README.md lists exactly the variables of EnvSchema, with their defaults', () => {
    // The service's table is the one under "## Configuration" (the bench documents its own variables elsewhere).
    const section = read('README.md')
      .split(/^## Configuration$/m)[1]!
      .split(/^## /m)[0]!;
    const rows = [...section.matchAll(/^\| `([A-Z_]+)` \| ([^|]+) \|/gm)].map((m) => [m[1]!, m[2]!.trim()] as const);
    assert.deepEqual(
      rows.map(([name]) => name),
      Object.keys(SCHEMA_DEFAULTS),
    );
    for (const [name, shown] of rows) {
      const value = SCHEMA_DEFAULTS[name]!;
      if (value !== '') assert.equal(shown, `\`${value}\``, name);
    }
  });

  test('.env.example lists exactly the variables of EnvSchema with the same defaults', () => {
    const entries = read('.env.example')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('#'))
      .map((line) => {
        const at = line.indexOf('=');
        return [line.slice(0, at), line.slice(at + 1)] as const;
      });
    assert.deepEqual(Object.fromEntries(entries), SCHEMA_DEFAULTS);
    assert.deepEqual(
      entries.map(([name]) => name),
      Object.keys(SCHEMA_DEFAULTS),
    );
  });
});

describe('settings an environment variable sets (issue 26)', () => {
  test('exactly the variables given, so that the console shows those read-only', () => {
    assert.deepEqual(loadConfig({ SMTP_URL: 'smtp://relay.example.org', PORT: '9000' }).settingsFromEnv, ['SMTP_URL']);
    assert.deepEqual(loadConfig({ MAIL_FROM: 'A <a@example.org>', PUBLIC_URL: 'https://x.example', SMTP_URL: '' }).settingsFromEnv, [
      'MAIL_FROM',
      'PUBLIC_URL',
    ]);
  });
});
