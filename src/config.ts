import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

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
  SMTP_URL: Type.String({ default: '', pattern: '^(|smtps?://.+)$' }),
  MAIL_FROM: Type.String({ minLength: 3, default: 'Mailroom <mailroom@localhost>' }),
  BODY_LIMIT: Type.Integer({ minimum: 1024, default: 1_048_576 }),
  UPLOAD_LIMIT: Type.Integer({ minimum: 1024, default: 52_428_800 }),
  LOGIN_MAX_FAILURES: Type.Integer({ minimum: 1, default: 10 }),
  LOGIN_FAILURE_WINDOW: Type.Integer({ minimum: 1, default: 900 }),
  PASSWORD_RESET_URL: Type.String({ default: '' }),
  SEND_WORKER: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
  ATTACHMENT_MAX_SIZE: Type.Integer({ minimum: 1, default: 26_214_400 }),
  IMAGE_CHECK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 5000 }),
});

type Env = Static<typeof EnvSchema>;

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Empty: embedded PGlite in `dataDir`. */
  readonly databaseUrl: string;
  readonly databasePoolSize: number;
  readonly dataDir: string;
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
  readonly bodyLimit: number;
  readonly uploadLimit: number;
  readonly loginMaxFailures: number;
  readonly loginFailureWindow: number;
  /** Where the password-reset mail points; the token is appended. */
  readonly passwordResetUrl: string;
  readonly sendWorker: boolean;
  /** Largest campaign attachment in bytes (larger → 413). */
  readonly attachmentMaxSize: number;
  /** How long a template's `check_external_images` waits for each image's HEAD answer. */
  readonly imageCheckTimeoutMs: number;
}

export class ConfigError extends Error {}

/** Reads, validates and freezes the configuration. Throws ConfigError naming the offending variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value.trim();
  }
  const converted = Value.Default(EnvSchema, Value.Convert(EnvSchema, raw)) as Env;
  const firstError = Value.Errors(EnvSchema, converted).First();
  if (firstError) {
    const name = firstError.path.replace(/^\//, '');
    throw new ConfigError(`Invalid environment variable ${name}=${JSON.stringify(raw[name])}: ${firstError.message}`);
  }
  if (converted.ADMIN_LOGIN && !converted.ADMIN_PASSWORD) {
    throw new ConfigError('ADMIN_LOGIN is set but ADMIN_PASSWORD is not: set both, or neither.');
  }
  if (converted.ADMIN_PASSWORD && converted.ADMIN_PASSWORD.length < 8) {
    throw new ConfigError('Invalid environment variable ADMIN_PASSWORD: it must have 8 characters or more.');
  }
  const publicUrl = converted.PUBLIC_URL.replace(/\/+$/, '');
  return Object.freeze({
    port: converted.PORT,
    host: converted.HOST,
    databaseUrl: converted.DATABASE_URL,
    databasePoolSize: converted.DATABASE_POOL_SIZE,
    dataDir: converted.DATA_DIR,
    publicUrl,
    sessionTtl: converted.SESSION_TTL,
    admin: Object.freeze({
      login: converted.ADMIN_LOGIN,
      password: converted.ADMIN_PASSWORD,
      email: converted.ADMIN_EMAIL,
    }),
    logLevel: converted.LOG_LEVEL,
    trustProxy: parseTrustProxy(converted.TRUST_PROXY),
    corsOrigins: Object.freeze(converted.CORS_ORIGIN.split(',').map((o) => o.trim()).filter(Boolean)),
    smtpUrl: converted.SMTP_URL,
    mailFrom: converted.MAIL_FROM,
    bodyLimit: converted.BODY_LIMIT,
    uploadLimit: converted.UPLOAD_LIMIT,
    loginMaxFailures: converted.LOGIN_MAX_FAILURES,
    loginFailureWindow: converted.LOGIN_FAILURE_WINDOW,
    passwordResetUrl: converted.PASSWORD_RESET_URL || `${publicUrl}/password-reset?token=`,
    sendWorker: converted.SEND_WORKER === 'on',
    attachmentMaxSize: converted.ATTACHMENT_MAX_SIZE,
    imageCheckTimeoutMs: converted.IMAGE_CHECK_TIMEOUT_MS,
    ...overrides,
  });
}

function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
