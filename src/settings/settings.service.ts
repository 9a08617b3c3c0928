import type { AppContext } from '../context.js';
import { ValidationError } from '../shared/errors.js';
import { toAtom } from '../shared/time.js';
import { writeValues } from './settings.repository.js';
import type { Settings, SettingsPatch, SmtpTestBody, SmtpTestResult } from './settings.schemas.js';
import { lockedKeys, SETTING_ENV, type SettingKey } from './settings.store.js';
import { testSmtpServer, withoutPassword } from './smtp-test.js';

/** Where the logo is served (settings.routes.ts), by its hash: a new logo is a new address, so it may be cached for ever. */
export const logoPath = (publicUrl: string, sha256: string) => `${publicUrl}/api/v2/logo/${sha256}`;

/** The settings as the API shows them: what applies, passwords left out, and which come from the environment. */
export function settingsView(ctx: AppContext): Settings {
  const now = ctx.settings.current;
  const locked = lockedKeys(ctx.config);
  const fromEnvironment: Settings['from_environment'] = {};
  for (const key of locked) if (key !== 'logo') Object.assign(fromEnvironment, { [key]: SETTING_ENV[key] });
  if (ctx.config.settingsFromEnv.includes('PUBLIC_URL')) fromEnvironment.public_url = 'PUBLIC_URL';
  const change = ctx.settings.lastChange();
  return {
    from_address: now.fromAddress,
    from_name: now.fromName,
    reply_to: now.replyTo,
    organisation_name: now.organisationName,
    logo: now.logo ? { url: logoPath(ctx.config.publicUrl, now.logo.sha256), content_type: now.logo.contentType, size: now.logo.size } : null,
    smtp_servers: now.smtpUrls.map((url) => {
      const parsed = new URL(url);
      return { url: withoutPassword(parsed), has_password: parsed.password !== '' };
    }),
    subscriber_html_default: now.subscriberHtmlDefault,
    public_url: ctx.config.publicUrl,
    from_environment: fromEnvironment,
    updated_at: toAtom(change?.updatedAt),
    updated_by: change?.updatedBy ?? null,
  };
}

/** Stores the fields given (all or none), then applies them in this process at once; the others follow on their next look. */
export async function patchSettings(ctx: AppContext, patch: SettingsPatch, adminId: number): Promise<Settings> {
  const locked = lockedKeys(ctx.config);
  const errors: Record<string, string[]> = {};
  for (const key of Object.keys(patch) as SettingKey[]) {
    if (locked.has(key)) errors[key] = [`Set by the environment variable ${SETTING_ENV[key]}, which wins over the console: change it there.`];
  }
  const values: Record<string, unknown> = {};
  if (patch.smtp_servers) {
    const urls: string[] = [];
    patch.smtp_servers.forEach((server, index) => {
      const problem = smtpUrlProblem(server.url);
      if (problem) (errors[`smtp_servers[${index}].url`] ??= []).push(problem);
      else urls.push(withStoredPassword(ctx, server.url, server.password));
    });
    values.smtp_servers = urls;
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  for (const key of ['from_address', 'from_name', 'reply_to', 'organisation_name', 'subscriber_html_default'] as const) {
    if (patch[key] !== undefined) values[key] = typeof patch[key] === 'string' ? patch[key].trim() : patch[key];
  }
  await writeValues(ctx.db, values, adminId);
  await ctx.settings.refresh();
  return settingsView(ctx);
}

/** What is wrong with an SMTP URL that the pattern let through, or null. Mirrors what config.ts checks of SMTP_URL. */
function smtpUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'This is not a URL.';
  }
  if (!url.hostname) return 'The URL names no host.';
  if (url.port && (Number(url.port) < 1 || Number(url.port) > 65535)) return 'The port must be between 1 and 65535.';
  const tls = url.searchParams.get('tls');
  if (tls !== null && tls !== 'off' && tls !== 'required') return `?tls= takes off or required, got "${tls}".`;
  const pool = url.searchParams.get('pool');
  if (pool !== null && !/^\d{1,3}$/.test(pool)) return '?pool= takes a number of connections (1 to 999).';
  return null;
}

/**
 * The URL to store: with the password given, or, none given, the one stored for the same URL (the console never
 * sees passwords, so it sends none back). A password written into the URL itself is taken as given.
 */
function withStoredPassword(ctx: AppContext, value: string, password: string | undefined): string {
  const url = new URL(value);
  if (url.password && password === undefined) return url.href;
  if (password !== undefined) {
    url.password = password === '' ? '' : encodeURIComponent(password);
    return url.href;
  }
  const bare = withoutPassword(url);
  const stored = ctx.settings.current.smtpUrls.find((candidate) => withoutPassword(new URL(candidate)) === bare);
  return stored ?? url.href;
}

/**
 * Test connection: the server given (its password, if none is given, the one stored for the same URL) or else the
 * first one that applies now.
 */
export async function testConnection(ctx: AppContext, body: SmtpTestBody): Promise<SmtpTestResult> {
  let url: string;
  if (body.server) {
    const problem = smtpUrlProblem(body.server.url);
    if (problem) throw ValidationError.field('server.url', problem);
    url = withStoredPassword(ctx, body.server.url, body.server.password);
  } else {
    const first = ctx.settings.current.smtpUrls[0];
    if (!first) throw ValidationError.field('server', 'No SMTP server is set: mail goes to the outbox. Give one to test.');
    url = first;
  }
  return testSmtpServer({
    url,
    allowPrivate: ctx.config.webhookAllowPrivate,
    from: ctx.settings.current.mailFrom,
    ...(body.send_to ? { sendTo: body.send_to } : {}),
  });
}
