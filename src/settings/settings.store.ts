import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Executor } from '../db/client.js';
import { latestVersion, readAll, type StoredRow } from './settings.repository.js';

/*
 * The settings every process applies (issue 26): what an environment variable sets, else what an administrator
 * stored in the database, else the configuration's default. Each process keeps them in memory and looks at the
 * stored version every SETTINGS_POLL_MS (one index read), so a change made through any process applies to all of
 * them within that time, without a restart; the process that made it applies it at once.
 */

/** The organisation's logo as stored (the bytes are served by settings.routes.ts). */
export interface LogoInfo {
  readonly sha256: string;
  readonly contentType: string;
  readonly size: number;
}

export interface EffectiveSettings {
  readonly fromAddress: string;
  readonly fromName: string;
  /**
   * `"Name" <address>` (the From name, else the organisation's name), or the address alone: the From of system mail
   * and of campaigns that name none.
   */
  readonly mailFrom: string;
  /** Reply-To of system mail and of campaigns that name none; '' for none. */
  readonly replyTo: string;
  readonly organisationName: string;
  readonly logo: LogoInfo | null;
  /** SMTP servers, passwords included (never leave the process but to the server). Empty: the outbox. */
  readonly smtpUrls: readonly string[];
  readonly subscriberHtmlDefault: boolean;
}

/** The stored keys, with the environment variable that, when set, takes the key's place. */
export const SETTING_ENV = {
  from_address: 'MAIL_FROM',
  from_name: 'MAIL_FROM',
  reply_to: null,
  organisation_name: null,
  smtp_servers: 'SMTP_URL',
  subscriber_html_default: 'SUBSCRIBER_HTML_DEFAULT',
  logo: null,
} as const;
export type SettingKey = keyof typeof SETTING_ENV;

/** The environment variables above that the process was started with: their settings are read-only. */
export function lockedKeys(config: Pick<Config, 'settingsFromEnv'>): Set<SettingKey> {
  return new Set(
    (Object.keys(SETTING_ENV) as SettingKey[]).filter((key) => {
      const variable = SETTING_ENV[key];
      return variable !== null && config.settingsFromEnv.includes(variable);
    }),
  );
}

/** `Name <address>` (MAIL_FROM's form) or a bare address, split. Index arithmetic: MAIL_FROM may be anything typed. */
export function splitMailbox(value: string): { name: string; address: string } {
  const open = value.lastIndexOf('<');
  const close = value.lastIndexOf('>');
  if (open >= 0 && close > open) {
    return {
      name: value
        .slice(0, open)
        .trim()
        .replace(/^"(.*)"$/, '$1'),
      address: value.slice(open + 1, close).trim(),
    };
  }
  return { name: '', address: value.trim() };
}

/** A display name and an address as one header value, the name quoted when it needs to be. */
export function joinMailbox(name: string, address: string): string {
  if (!name) return address;
  const quoted = /^[\w !#$%&'*+\-/=?^`{|}~]+$/.test(name) ? name : `"${name.replace(/["\\]/g, '\\$&')}"`;
  return `${quoted} <${address}>`;
}

export type SettingsListener = (now: EffectiveSettings, before: EffectiveSettings) => void;

export class SettingsStore {
  private version = -1;
  private rows = new Map<string, StoredRow>();
  private effective: EffectiveSettings;
  private readonly listeners: SettingsListener[] = [];
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;

  constructor(
    private readonly db: Executor,
    private readonly config: Config,
    private readonly log: FastifyBaseLogger,
  ) {
    this.effective = this.compute();
  }

  /** What applies now (as of the last look at the database). */
  get current(): EffectiveSettings {
    return this.effective;
  }

  /** The stored row of a key, null when none was ever written. */
  stored(key: SettingKey): StoredRow | null {
    return this.rows.get(key) ?? null;
  }

  /** The latest change of any key: who and when. */
  lastChange(): { updatedAt: Date; updatedBy: number | null } | null {
    let latest: StoredRow | null = null;
    for (const row of this.rows.values()) if (!latest || row.updatedAt > latest.updatedAt) latest = row;
    return latest ? { updatedAt: latest.updatedAt, updatedBy: latest.updatedBy } : null;
  }

  /** Called with the new and the previous settings whenever they change (the mailer rebuilds its pools). */
  onChange(listener: SettingsListener): void {
    this.listeners.push(listener);
  }

  /** Reads the stored settings, then keeps looking for changes every `pollMs` (0: only when refresh() is called). */
  async start(pollMs: number): Promise<void> {
    await this.refresh();
    if (pollMs > 0) {
      this.timer = setInterval(() => {
        this.refresh().catch((err: unknown) => this.log.warn({ err }, 'settings: could not look for changes; the last ones read stay'));
      }, pollMs);
      this.timer.unref();
    }
  }

  /** Looks at the stored version and, when it moved, reads and applies every setting. One look at a time. */
  refresh(): Promise<void> {
    this.polling ??= this.look().finally(() => {
      this.polling = null;
    });
    return this.polling;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async look(): Promise<void> {
    if ((await latestVersion(this.db)) === this.version) return;
    const { version, rows } = await readAll(this.db);
    this.version = version;
    this.rows = new Map(rows.map((row) => [row.key, row]));
    const before = this.effective;
    this.effective = this.compute();
    if (JSON.stringify(before) === JSON.stringify(this.effective)) return;
    for (const listener of this.listeners) {
      try {
        listener(this.effective, before);
      } catch (err) {
        this.log.error({ err }, 'settings: a listener failed to apply a change');
      }
    }
  }

  private compute(): EffectiveSettings {
    const locked = lockedKeys(this.config);
    const value = <T>(key: SettingKey, isType: (v: unknown) => v is T, fallback: T): T => {
      if (locked.has(key)) return fallback;
      const stored = this.rows.get(key)?.value;
      return stored !== undefined && stored !== null && isType(stored) ? stored : fallback;
    };
    const configured = splitMailbox(this.config.mailFrom);
    const fromAddress = value('from_address', isString, configured.address);
    const fromName = value('from_name', isString, configured.name);
    const configuredUrls = this.config.smtpUrl
      .split(',')
      .map((url) => url.trim())
      .filter(Boolean);
    const organisationName = value('organisation_name', isString, '');
    return {
      fromAddress,
      fromName,
      // Without a From name of its own, mail is from the organisation (issue 26): "Club e.V." <news@club.example>.
      mailFrom: joinMailbox(fromName || organisationName.trim(), fromAddress),
      replyTo: value('reply_to', isString, ''),
      organisationName,
      logo: value('logo', isLogo, null),
      smtpUrls: value('smtp_servers', isStringArray, configuredUrls),
      subscriberHtmlDefault: value('subscriber_html_default', isBoolean, this.config.subscriberHtmlDefault),
    };
  }
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const isLogo = (v: unknown): v is LogoInfo =>
  typeof v === 'object' &&
  v !== null &&
  isString((v as LogoInfo).sha256) &&
  isString((v as LogoInfo).contentType) &&
  typeof (v as LogoInfo).size === 'number';
