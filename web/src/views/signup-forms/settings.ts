/*
 * A subscribe page's settings (its `data` items, docs/api.md "Sign-up forms") as the editor holds them, and back. The
 * public form reads them as src/public/signup.service.ts says: `lists` and `attributes` are comma-separated ids in
 * the order shown, `double_optin` is on unless it is 0/no/false/off, `emaildoubleentry` is off unless it is
 * 1/yes/true/on, `language` is en or de (empty: the visitor's browser decides).
 */

export type Language = '' | 'en' | 'de';

export interface Draft {
  lists: number[];
  attributes: number[];
  header: string;
  intro: string;
  button: string;
  thankyoupage: string;
  footer: string;
  language: Language;
  doubleOptIn: boolean;
  emailTwice: boolean;
  logoUrl: string;
  accentColor: string;
  customCss: string;
}

/** Each setting the editor writes: its name in the API, what the screen calls it, and its value from a draft. */
export const SETTINGS = [
  { name: 'lists', label: 'Lists offered', value: (d: Draft) => d.lists.join(',') },
  { name: 'attributes', label: 'Attributes asked', value: (d: Draft) => d.attributes.join(',') },
  { name: 'header', label: 'Heading', value: (d: Draft) => d.header.trim() },
  { name: 'intro', label: 'Introduction', value: (d: Draft) => d.intro.trim() },
  { name: 'button', label: 'Button text', value: (d: Draft) => d.button.trim() },
  { name: 'thankyoupage', label: 'Thank-you text', value: (d: Draft) => d.thankyoupage.trim() },
  { name: 'footer', label: 'Footer', value: (d: Draft) => d.footer.trim() },
  { name: 'language', label: 'Language', value: (d: Draft) => d.language },
  { name: 'double_optin', label: 'Double opt-in', value: (d: Draft) => (d.doubleOptIn ? 'yes' : 'no') },
  { name: 'emaildoubleentry', label: 'Ask for the address twice', value: (d: Draft) => (d.emailTwice ? 'yes' : 'no') },
  { name: 'logo_url', label: 'Logo URL', value: (d: Draft) => d.logoUrl.trim() },
  { name: 'accent_color', label: 'Accent colour', value: (d: Draft) => d.accentColor.trim() },
  { name: 'custom_css', label: 'Custom CSS', value: (d: Draft) => d.customCss },
] as const;

export type SettingName = (typeof SETTINGS)[number]['name'];

const NO = new Set(['0', 'no', 'false', 'off']);
const YES = new Set(['1', 'yes', 'true', 'on']);
const flag = (value: string | null | undefined) => value?.trim().toLowerCase() ?? '';

/** Ids of a comma-separated setting, as the public form reads them (digits only, each once, in order). */
export function idsOf(value: string | null | undefined): number[] {
  const ids = (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => /^\d{1,10}$/.test(part))
    .map(Number)
    .filter((n) => n >= 1 && n <= 2_147_483_647);
  return [...new Set(ids)];
}

/** The editor's draft from the page's stored settings. */
export function draftOf(items: readonly { name: string; data: string | null }[]): Draft {
  const data = new Map(items.map((item) => [item.name, item.data ?? '']));
  const text = (name: string) => data.get(name) ?? '';
  const language = flag(data.get('language'));
  return {
    lists: idsOf(data.get('lists')),
    attributes: idsOf(data.get('attributes')),
    header: text('header'),
    intro: text('intro'),
    button: text('button'),
    thankyoupage: text('thankyoupage'),
    footer: text('footer'),
    language: language === 'en' || language === 'de' ? language : '',
    doubleOptIn: !NO.has(flag(data.get('double_optin'))),
    emailTwice: YES.has(flag(data.get('emaildoubleentry'))),
    logoUrl: text('logo_url'),
    accentColor: text('accent_color'),
    customCss: text('custom_css'),
  };
}

/**
 * The settings whose value differs between two drafts, with the value to write (null clears an empty one). Compared
 * as the editor would write them, so a setting stored in another spelling (`1` for `yes`) is not rewritten untouched.
 */
export function changedSettings(saved: Draft, draft: Draft): { name: SettingName; label: string; value: string | null }[] {
  return SETTINGS.filter((s) => s.value(saved) !== s.value(draft)).map((s) => ({ name: s.name, label: s.label, value: s.value(draft) || null }));
}

/** `#rgb` or `#rrggbb` as the colour input's `#rrggbb`, or null when it is not one. */
export function colourInputValue(value: string): string | null {
  const text = value.trim();
  if (/^#[0-9a-f]{6}$/i.test(text)) return text.toLowerCase();
  if (/^#[0-9a-f]{3}$/i.test(text)) return `#${[...text.slice(1)].map((c) => c + c).join('')}`.toLowerCase();
  return null;
}
