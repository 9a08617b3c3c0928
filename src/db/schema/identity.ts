import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
};

export const administrators = pgTable(
  'administrators',
  {
    id: serial('id').primaryKey(),
    loginName: text('login_name').notNull(),
    email: text('email').notNull(),
    /** `scrypt$N$r$p$salt$hash`, see identity/password.ts. */
    passwordHash: text('password_hash').notNull(),
    superUser: boolean('super_user').notNull().default(false),
    privSubscribers: boolean('priv_subscribers').notNull().default(false),
    privCampaigns: boolean('priv_campaigns').notNull().default(false),
    privStatistics: boolean('priv_statistics').notNull().default(false),
    privSettings: boolean('priv_settings').notNull().default(false),
    disabled: boolean('disabled').notNull().default(false),
    passwordChangedAt: timestamp('password_changed_at', { withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('administrators_login_name_key').on(sql`lower(${t.loginName})`),
    uniqueIndex('administrators_email_key').on(sql`lower(${t.email})`),
  ],
);

/** Login sessions. Only the SHA-256 of the key is stored; the key itself is shown once, at login. */
export const sessions = pgTable(
  'sessions',
  {
    id: serial('id').primaryKey(),
    administratorId: integer('administrator_id')
      .notNull()
      .references(() => administrators.id, { onDelete: 'cascade' }),
    keyHash: text('key_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('sessions_key_hash_key').on(t.keyHash), index('sessions_administrator_id_idx').on(t.administratorId)],
);

/** Failed logins, by login name and client address, for the lock-out shared by every API process. */
export const loginFailures = pgTable(
  'login_failures',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    loginName: text('login_name').notNull(),
    clientIp: text('client_ip').notNull(),
    /** Failed from an address that had signed in as this login before: not counted in the login's own budget. */
    fromKnownClient: boolean('from_known_client').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('login_failures_login_name_idx').on(sql`lower(${t.loginName})`, t.createdAt),
    index('login_failures_client_ip_idx').on(t.clientIp, t.createdAt),
  ],
);

/**
 * Client addresses (an IPv6 address by its /64) an administrator has given the right password from: the login
 * throttle (routine 045_login_attempt.sql) does not hold the login's own failure budget against them.
 */
export const loginKnownClients = pgTable(
  'login_known_clients',
  {
    administratorId: integer('administrator_id')
      .notNull()
      .references(() => administrators.id, { onDelete: 'cascade' }),
    clientIp: text('client_ip').notNull(),
    lastSuccessAt: timestamp('last_success_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.administratorId, t.clientIp] })],
);

export const passwordResetTokens = pgTable(
  'password_reset_tokens',
  {
    id: serial('id').primaryKey(),
    administratorId: integer('administrator_id')
      .notNull()
      .references(() => administrators.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * The request rate limit rides on the token row: a new request replaces the previous token but carries its
     * count forward while the window that began at `window_started_at` lasts.
     */
    requestCount: integer('request_count').notNull().default(1),
    windowStartedAt: timestamp('window_started_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('password_reset_tokens_token_hash_key').on(t.tokenHash),
    index('password_reset_tokens_administrator_id_idx').on(t.administratorId),
  ],
);

export const adminAttributeDefinitions = pgTable(
  'admin_attribute_definitions',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    type: text('type'),
    listOrder: integer('list_order'),
    defaultValue: text('default_value'),
    required: boolean('required').notNull().default(false),
    ...timestamps,
  },
  (t) => [uniqueIndex('admin_attribute_definitions_name_key').on(sql`lower(${t.name})`)],
);

export const adminAttributeValues = pgTable(
  'admin_attribute_values',
  {
    administratorId: integer('administrator_id')
      .notNull()
      .references(() => administrators.id, { onDelete: 'cascade' }),
    definitionId: integer('definition_id')
      .notNull()
      .references(() => adminAttributeDefinitions.id, { onDelete: 'cascade' }),
    value: text('value'),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.administratorId, t.definitionId] })],
);
