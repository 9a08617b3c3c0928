/*
 * The languages of the public pages. Every visible string comes from a catalogue (`messages/<area>.ts`), one per
 * area so that the people working on different pages do not edit the same file. A catalogue is built with
 * `catalogue({ en, de })`: the German half must have exactly the English keys, so a missing or stray translation
 * fails typecheck, not a visitor.
 */

export const LANGUAGES = ['en', 'de'] as const;
export type Lang = (typeof LANGUAGES)[number];
export const DEFAULT_LANG: Lang = 'en';

export type Messages = Readonly<Record<string, string>>;
export interface Catalogue<M extends Messages> {
  readonly en: M;
  readonly de: { readonly [K in keyof M]: string };
}

/** Ties the German keys to the English ones (NoInfer: the English half alone decides what the keys are). */
export function catalogue<const M extends Messages>(messages: { en: M; de: NoInfer<{ [K in keyof M]: string }> }): Catalogue<M> {
  return messages;
}

export function isLang(value: unknown): value is Lang {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** Header values longer than this are read only this far: nobody's browser sends more. */
const MAX_HEADER = 512;
const MAX_RANGES = 32;

/**
 * The best language we have for an `Accept-Language` header (RFC 9110 §12.5.4): ranges by q-value, ties in the
 * order given, `*` meaning any, `de-AT` matching `de`. Split by hand, no regular expression: the header is outside
 * text. Null when nothing acceptable is offered (the caller falls back).
 */
export function fromAcceptLanguage(header: string | undefined): Lang | null {
  if (!header) return null;
  const ranges: { tag: string; q: number; order: number }[] = [];
  const parts = header.slice(0, MAX_HEADER).split(',').slice(0, MAX_RANGES);
  parts.forEach((part, order) => {
    const [rawTag = '', ...params] = part.split(';');
    const tag = rawTag.trim().toLowerCase();
    if (tag === '') return;
    let q = 1;
    for (const param of params) {
      const [key = '', value = ''] = param.split('=');
      if (key.trim().toLowerCase() !== 'q') continue;
      const n = Number(value.trim());
      q = value.trim() !== '' && Number.isFinite(n) && n >= 0 && n <= 1 ? n : 0;
    }
    if (q > 0) ranges.push({ tag, q, order });
  });
  ranges.sort((a, b) => b.q - a.q || a.order - b.order);
  for (const { tag } of ranges) {
    if (tag === '*') return DEFAULT_LANG;
    const primary = tag.split('-')[0];
    if (isLang(primary)) return primary;
  }
  return null;
}

/**
 * The language of a page: the subscribe page's own setting (`language`: `en`, `de`) when it has one, else the
 * browser's preference, else English.
 */
export function pickLanguage(setting: string | null | undefined, acceptLanguage: string | undefined): Lang {
  const fixed = setting?.trim().toLowerCase();
  if (isLang(fixed)) return fixed;
  return fromAcceptLanguage(acceptLanguage) ?? DEFAULT_LANG;
}

export type Translate<M extends Messages> = (key: keyof M & string, vars?: Readonly<Record<string, string | number>>) => string;

/**
 * A catalogue's messages in one language as a function: `t('greeting', { name })` fills `{name}`. The result is
 * plain text (the caller escapes it for HTML); an unknown `{placeholder}` stays as written.
 */
export function translator<M extends Messages>(messages: Catalogue<M>, lang: Lang): Translate<M> {
  const table = messages[lang] as Readonly<Record<string, string>>;
  return (key, vars) => {
    const text = table[key] ?? (messages.en as Readonly<Record<string, string>>)[key] ?? key;
    if (!vars) return text;
    return text.replace(/\{(\w{1,40})\}/g, (whole, name: string) => (Object.hasOwn(vars, name) ? String(vars[name]) : whole));
  };
}
