import { isLang, LANGUAGES } from '../shared/i18n.js';

/*
 * A subscribe page's own look: logo, accent colour, custom CSS (subscribe-page data keys `logo_url`,
 * `accent_color`, `custom_css`). Administrators type these, so each is checked here and anything unusable is
 * left out rather than breaking the page: the page stays readable whatever was stored.
 */

export interface PageLook {
  /** An absolute https (or http) URL of an image. */
  readonly logoUrl?: string | null;
  /** `#rgb` or `#rrggbb`. */
  readonly accentColor?: string | null;
  readonly customCss?: string | null;
}

/** Custom CSS longer than this is not a stylesheet anyone writes for a sign-up form. */
export const MAX_CUSTOM_CSS = 20_000;

type Rgb = readonly [number, number, number];

/** `#rgb` / `#rrggbb` (case-insensitive) as channels, or null. */
export function parseHexColor(value: string | null | undefined): Rgb | null {
  const text = value?.trim() ?? '';
  if (!/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(text)) return null;
  const hex = text.length === 4 ? [...text.slice(1)].map((c) => c + c).join('') : text.slice(1);
  return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)) as unknown as Rgb;
}

const toHex = (rgb: Rgb) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

/** WCAG relative luminance. */
function luminance(rgb: Rgb): number {
  const [r, g, b] = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as unknown as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const mix = (a: Rgb, b: Rgb, t: number): Rgb => [0, 1, 2].map((i) => a[i]! + (b[i]! - a[i]!) * t) as unknown as Rgb;

/** The colour moved towards `toward` just enough to reach a 4.5:1 contrast on `background` (WCAG AA text). */
function readableOn(color: Rgb, background: Rgb, toward: Rgb): Rgb {
  for (let t = 0; t <= 1; t += 0.05) {
    const candidate = mix(color, toward, t);
    if (contrast(candidate, background) >= 4.5) return candidate;
  }
  return toward;
}

const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [0, 0, 0];
/** The card backgrounds of style.css, light and dark. */
const LIGHT_CARD: Rgb = [255, 255, 255];
const DARK_CARD: Rgb = [0x1c, 0x1f, 0x27];

/**
 * The CSS variables of an accent colour: the accent itself (buttons, the card's top edge), the text colour on it
 * (white or black, whichever reads better), and link colours adjusted to read on the light and the dark card.
 */
export function accentVariables(value: string | null | undefined): string | null {
  const accent = parseHexColor(value);
  if (!accent) return null;
  const ink = contrast(accent, WHITE) >= contrast(accent, BLACK) ? WHITE : BLACK;
  return (
    `--accent:${toHex(accent)};--accent-ink:${toHex(ink)};` +
    `--link:${toHex(readableOn(accent, LIGHT_CARD, BLACK))};--link-dark:${toHex(readableOn(accent, DARK_CARD, WHITE))};`
  );
}

/** The logo URL when it is an absolute http(s) URL without credentials, else null. */
export function logoUrl(value: string | null | undefined): URL | null {
  const text = value?.trim() ?? '';
  if (text === '' || text.length > 2000) return null;
  try {
    const url = new URL(text);
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) return null;
    return url;
  } catch {
    return null;
  }
}

/**
 * Custom CSS made safe to sit in a `<style>` element: `<` cannot end the element (CSS has no use for it outside
 * strings and comments, where dropping it costs nothing), and it is cut at MAX_CUSTOM_CSS. The page's CSP is what
 * keeps it from loading anything from elsewhere (layout.ts).
 */
export function safeCustomCss(value: string | null | undefined): string {
  return (value ?? '').slice(0, MAX_CUSTOM_CSS).replaceAll('<', '');
}

/**
 * What is wrong with a value for one of the settings the public pages read (`accent_color`, `logo_url`,
 * `custom_css`, `language`), or null when it is fine or not one of them. Empty clears a setting.
 */
export function settingProblem(name: string, value: string | null): string | null {
  if (value === null || value.trim() === '') return null;
  if (name === 'accent_color' && !parseHexColor(value)) return 'The accent colour must be a hex colour such as #2557d6.';
  if (name === 'logo_url' && !logoUrl(value)) return 'The logo URL must be an absolute http(s) URL without user name or password.';
  if (name === 'custom_css' && value.length > MAX_CUSTOM_CSS) return `Custom CSS may be at most ${MAX_CUSTOM_CSS} characters.`;
  if (name === 'language' && !isLang(value.trim().toLowerCase())) return `The language must be one of ${LANGUAGES.join(', ')}.`;
  return null;
}
