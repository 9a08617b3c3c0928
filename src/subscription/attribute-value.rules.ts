/*
 * What a subscriber attribute value may be, by type (reference §7.7). Pure functions shared by the value
 * endpoints, the CSV import and export, and the campaign renderer.
 */

export interface OptionLike {
  readonly id: number;
  readonly name: string;
}

export interface DefinitionLike {
  readonly type: string | null;
  readonly options: readonly OptionLike[];
}

export type CheckedValue = { ok: true; stored: string | null } | { ok: false; reason: string };

const TRUE_WORDS = new Set(['1', 'true', 'on', 'yes', 'y', 'checked']);
const FALSE_WORDS = new Set(['0', 'false', 'off', 'no', 'n', '']);

/** An option by id (digits) or by name (case-insensitive). */
export function findOption(options: readonly OptionLike[], raw: string): OptionLike | undefined {
  const text = raw.trim();
  if (/^\d+$/.test(text)) {
    const byId = options.find((o) => o.id === Number(text));
    if (byId) return byId;
  }
  const lower = text.toLowerCase();
  return options.find((o) => o.name.toLowerCase() === lower);
}

function optionNames(options: readonly OptionLike[]): string {
  return options.length === 0 ? 'none defined' : options.map((o) => o.name).join(', ');
}

function isRealDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/**
 * Checks a value against its definition and answers what to store: option ids for option types (comma-separated
 * for checkboxgroup), `1`/`0` for a checkbox, `YYYY-MM-DD` for a date, the text otherwise. Null stays null.
 */
export function checkAttributeValue(definition: DefinitionLike, raw: unknown): CheckedValue {
  if (raw === null || raw === undefined) return { ok: true, stored: null };
  const type = (definition.type ?? 'textline').toLowerCase();

  if (type === 'checkbox') {
    if (typeof raw === 'boolean') return { ok: true, stored: raw ? '1' : '0' };
    const word = String(raw).trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return { ok: true, stored: '1' };
    if (FALSE_WORDS.has(word)) return { ok: true, stored: '0' };
    return { ok: false, reason: `A checkbox value must be true or false, not "${String(raw)}".` };
  }

  if (type === 'checkboxgroup') {
    const parts = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' || typeof raw === 'number' ? String(raw).split(',') : null;
    if (parts === null) return { ok: false, reason: 'A checkboxgroup value must be a list of options.' };
    const ids: number[] = [];
    for (const part of parts.map((p) => p.trim()).filter((p) => p !== '')) {
      const option = findOption(definition.options, part);
      if (!option) return { ok: false, reason: `"${part}" is not one of the options (${optionNames(definition.options)}).` };
      if (!ids.includes(option.id)) ids.push(option.id);
    }
    return { ok: true, stored: ids.join(',') };
  }

  if (typeof raw !== 'string' && typeof raw !== 'number') {
    return { ok: false, reason: 'The value must be a string.' };
  }
  const text = String(raw);

  if (type === 'select' || type === 'radio') {
    if (text.trim() === '') return { ok: true, stored: '' };
    const option = findOption(definition.options, text);
    if (!option) return { ok: false, reason: `"${text}" is not one of the options (${optionNames(definition.options)}).` };
    return { ok: true, stored: String(option.id) };
  }

  if (type === 'date') {
    const trimmed = text.trim();
    if (trimmed === '') return { ok: true, stored: '' };
    const day = trimmed.slice(0, 10);
    // A full ISO date-time is accepted and kept to its day.
    if (!isRealDate(day) || (trimmed.length > 10 && Number.isNaN(Date.parse(trimmed)))) {
      return { ok: false, reason: `"${text}" is not a date (expected YYYY-MM-DD).` };
    }
    return { ok: true, stored: day };
  }

  if ((type === 'textline' || type === 'hidden' || type === 'creditcardno') && /[\r\n]/.test(text)) {
    return { ok: false, reason: `A ${type} value must be a single line.` };
  }
  return { ok: true, stored: text };
}

/** The value as people read it: option ids resolved to option names (comma-joined for checkboxgroup). */
export function displayAttributeValue(definition: DefinitionLike, stored: string | null): string {
  if (stored === null) return '';
  const type = (definition.type ?? 'textline').toLowerCase();
  if (type === 'select' || type === 'radio' || type === 'checkboxgroup') {
    return stored
      .split(',')
      .map((id) => definition.options.find((o) => String(o.id) === id.trim())?.name)
      .filter((name): name is string => name !== undefined)
      .join(', ');
  }
  return stored;
}
