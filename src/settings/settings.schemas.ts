import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Email, Nullable, StringEnum } from '../shared/schemas.js';

/*
 * GET/PATCH /api/v2/settings (issue 26; docs/api.md "Settings"). One schema validates the PATCH body, shapes the
 * answer and documents both. SMTP passwords go in and never come out: a server is shown as its URL without the
 * password, and `has_password`.
 */

const SmtpUrl = Type.String({
  maxLength: 2000,
  pattern: '^smtps?://[^\\s,]+$',
  errorMessage: 'An SMTP server is smtp://host:port or smtps://host:port, optionally with user@, ?tls=off|required and ?pool=N.',
  description: 'As SMTP_URL takes one server: `smtp://user@host:587?tls=required`; the password goes in `password`',
});

export const SmtpServerInput = Type.Object(
  {
    url: SmtpUrl,
    password: Type.Optional(
      Type.String({
        maxLength: 500,
        description: 'Write-only. Absent: the password stored for the same URL stays; "": no password',
      }),
    ),
  },
  { additionalProperties: false },
);

export const SmtpServer = Type.Object({
  url: Type.String({ description: 'Without the password' }),
  has_password: Type.Boolean(),
});

const Name = Type.String({ maxLength: 200 });
// The empty branch says what the other does, so that a bad address gets one message (validation.ts keeps one of each).
const ReplyTo = Type.Union([Type.Literal('', { errorMessage: 'This value is not a valid email address.' }), Email], { description: 'Empty: none' });

export const SettingsPatch = Type.Object(
  {
    from_address: Type.Optional(Email),
    from_name: Type.Optional(Name),
    reply_to: Type.Optional(ReplyTo),
    organisation_name: Type.Optional(Name),
    smtp_servers: Type.Optional(Type.Array(SmtpServerInput, { maxItems: 20, description: 'Empty: mail is written to the outbox' })),
    subscriber_html_default: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type SettingsPatch = Static<typeof SettingsPatch>;

export const Logo = Type.Object({
  url: Type.String({ description: 'Anonymous, cached for a year: the address changes with the image' }),
  content_type: Type.String(),
  size: Type.Integer(),
});

const EnvName = Type.String({ description: 'The environment variable that sets it; it wins over the console' });

export const Settings = Type.Object({
  from_address: Type.String(),
  from_name: Type.String(),
  reply_to: Type.String(),
  organisation_name: Type.String(),
  logo: Nullable(Logo),
  smtp_servers: Type.Array(SmtpServer),
  subscriber_html_default: Type.Boolean(),
  public_url: Type.String({ description: 'PUBLIC_URL; read-only' }),
  from_environment: Type.Object(
    {
      from_address: Type.Optional(EnvName),
      from_name: Type.Optional(EnvName),
      smtp_servers: Type.Optional(EnvName),
      subscriber_html_default: Type.Optional(EnvName),
      public_url: Type.Optional(EnvName),
    },
    { description: 'The settings an environment variable sets (read-only here), with its name' },
  ),
  updated_at: Nullable(DateTime),
  updated_by: Nullable(Type.Integer({ description: 'Administrator id of the last change' })),
});
export type Settings = Static<typeof Settings>;

export const SmtpTestBody = Type.Object(
  {
    server: Type.Optional(SmtpServerInput),
    send_to: Type.Optional(Email),
  },
  { additionalProperties: false },
);
export type SmtpTestBody = Static<typeof SmtpTestBody>;

export const SmtpTestStep = Type.Object({
  step: StringEnum(['address', 'connect', 'tls', 'greeting', 'ehlo', 'starttls', 'auth', 'mail'] as const),
  ok: Type.Boolean(),
  detail: Type.String({ description: "What happened, with the server's answer" }),
});
export type SmtpTestStep = Static<typeof SmtpTestStep>;

export const SmtpTestResult = Type.Object({
  ok: Type.Boolean(),
  server: Type.String({ description: 'The server tested, without the password' }),
  steps: Type.Array(SmtpTestStep),
});
export type SmtpTestResult = Static<typeof SmtpTestResult>;
