import { checkAttributeValue } from './attribute-value.rules.js';
import type { DefinitionWithOptions } from './attribute.repository.js';
import { sameTarget, type ColumnMapping, type ColumnTarget } from './subscriber-import.mapping.js';

/*
 * The header of an import file and what one row says (reference §8.4): known columns by name, matched
 * case-insensitively, every other column an attribute when a definition has that name, the rest ignored.
 */

export type Flag = 'confirmed' | 'blacklisted' | 'htmlEmail' | 'disabled';

const KNOWN: Record<string, Flag | 'email' | 'extraData' | 'foreignKey' | 'never'> = {
  email: 'email',
  confirmed: 'confirmed',
  blacklisted: 'blacklisted',
  html_email: 'htmlEmail',
  htmlemail: 'htmlEmail',
  disabled: 'disabled',
  extra_data: 'extraData',
  extradata: 'extraData',
  foreignkey: 'foreignKey',
  foreign_key: 'foreignKey',
  // Never imported (phpList): a password column would be plain text, `modified` is ours to set.
  password: 'never',
  modified: 'never',
};

export interface ImportColumns {
  readonly email: number;
  /** Each flag column present: the flag and its index. */
  readonly flags: readonly (readonly [Flag, number])[];
  readonly extraData?: number;
  readonly foreignKey?: number;
  readonly attributes: readonly { index: number; definition: DefinitionWithOptions }[];
  /** Number of header fields: a row with more fields than this is refused. */
  readonly width: number;
  /**
   * Header names (as written, trimmed) whose cells set nothing: unknown, never imported, or a repeated name; a
   * column the mapping says not to import is not listed (it was chosen).
   */
  readonly ignored: readonly string[];
}

/**
 * Maps the header; null when there is no email column. A column the `mapping` names goes where it says; any other
 * goes by its name, the first of two columns with one name counting, and is ignored when the mapping already sent
 * another column to the same place.
 */
export function mapHeader(
  header: string[],
  definitions: readonly DefinitionWithOptions[],
  mapping: ColumnMapping | null = null,
): ImportColumns | null {
  const byName = new Map(definitions.map((d) => [d.name.trim().toLowerCase(), d]));
  const byId = new Map(definitions.map((d) => [d.id, d]));
  const mapped = [...(mapping?.values() ?? [])];
  let email: number | undefined;
  let extraData: number | undefined;
  let foreignKey: number | undefined;
  const flags: Partial<Record<Flag, number>> = {};
  const attributes: { index: number; definition: DefinitionWithOptions }[] = [];
  const ignored: string[] = [];
  const seen = new Set<string>();
  header.forEach((raw, index) => {
    const name = raw.trim().toLowerCase();
    if (name === '') return;
    const chosen = mapping?.get(raw.trim());
    let target: ColumnTarget | undefined = chosen;
    if (!chosen) {
      const byItsName = seen.has(name) ? undefined : targetNamed(name, byName);
      seen.add(name);
      target = byItsName && !mapped.some((m) => sameTarget(m, byItsName)) ? byItsName : undefined;
    }
    if (!target || target.kind === 'ignore') {
      if (!chosen) ignored.push(raw.trim());
      return;
    }
    if (target.kind === 'email') email = index;
    else if (target.kind === 'extraData') extraData = index;
    else if (target.kind === 'foreignKey') foreignKey = index;
    else if (target.kind === 'flag') flags[target.flag] = index;
    else attributes.push({ index, definition: byId.get(target.id)! });
  });
  if (email === undefined) return null;
  const flagColumns = Object.entries(flags) as [Flag, number][];
  return { email, flags: flagColumns, extraData, foreignKey, attributes, width: header.length, ignored };
}

/** What a header name means by itself: a subscriber field, an attribute definition's name, or nothing. */
function targetNamed(name: string, byName: ReadonlyMap<string, DefinitionWithOptions>): ColumnTarget | undefined {
  const known = Object.hasOwn(KNOWN, name) ? KNOWN[name] : undefined;
  if (known === 'never') return undefined;
  if (known === 'email' || known === 'extraData' || known === 'foreignKey') return { kind: known };
  if (known) return { kind: 'flag', flag: known };
  const definition = byName.get(name);
  return definition ? { kind: 'attribute', id: definition.id } : undefined;
}

/** Import booleans (reference §8.4): `1`, `true`, `on`, `yes`, any case; anything else is false. */
export function importBoolean(value: string): boolean {
  const word = value.trim().toLowerCase();
  return word === '1' || word === 'true' || word === 'on' || word === 'yes';
}

// The same shape the schemas' `format: email` accepts (ajv-formats' fast mode), so imports and the API agree.
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

export function isEmail(value: string): boolean {
  return value.length <= 255 && EMAIL.test(value);
}

/** One row, read and checked; `invalidEmail` rows are stored as `invalid_<email>` and never mailed. */
export interface ImportRow {
  readonly line: number;
  /** The row's cells as parsed, for the import's report. */
  readonly fields: readonly string[];
  readonly email: string;
  readonly invalidEmail: boolean;
  readonly flags: Partial<Record<Flag, boolean>>;
  readonly extraData?: string;
  readonly foreignKey?: string;
  readonly attributes: readonly { definitionId: number; value: string | null }[];
  readonly attributeNames: readonly string[];
}

/** A refused row says why, without its line (the caller adds it). */
export type RowOutcome = { ok: true; row: ImportRow } | { ok: false; reason: string };

/** A leading `'` our export adds against formula injection is taken off again, so files round-trip. */
function unguard(value: string): string {
  return value.length > 1 && value[0] === "'" && '=+-@\t\r'.includes(value[1]!) ? value.slice(1) : value;
}

/** Reads one record against the header (the line is the file's, the header being line 1). */
export function readRow(fields: string[], line: number, columns: ImportColumns, skipInvalidEmails: boolean): RowOutcome {
  if (fields.length > columns.width) {
    return { ok: false, reason: `${fields.length} fields, but the header has ${columns.width}.` };
  }
  const cell = (index: number | undefined) => (index === undefined ? undefined : unguard((fields[index] ?? '').trim()));
  let email = cell(columns.email)!.toLowerCase();
  if (email === '') return { ok: false, reason: `email: This value should not be blank.` };
  let invalidEmail = false;
  if (!isEmail(email)) {
    if (skipInvalidEmails) return { ok: false, reason: `Invalid email: ${email.slice(0, 255)}` };
    if (email.length > 246) return { ok: false, reason: `email: This value is too long.` };
    email = `invalid_${email}`;
    invalidEmail = true;
  }
  const foreignKey = cell(columns.foreignKey);
  if (foreignKey !== undefined && foreignKey.length > 191) {
    return { ok: false, reason: `foreignkey: This value is too long. It should have 191 characters or less.` };
  }
  const flags: Partial<Record<Flag, boolean>> = {};
  for (const [flag, index] of columns.flags) {
    flags[flag] = importBoolean(cell(index)!);
  }
  const attributes: { definitionId: number; value: string | null }[] = [];
  const attributeNames: string[] = [];
  for (const { index, definition } of columns.attributes) {
    const raw = cell(index)!;
    // An empty cell leaves the stored value alone.
    if (raw === '') continue;
    const checked = checkAttributeValue(definition, raw);
    if (!checked.ok) return { ok: false, reason: `${definition.name}: ${checked.reason}` };
    attributes.push({ definitionId: definition.id, value: checked.stored });
    attributeNames.push(definition.name);
  }
  return {
    ok: true,
    row: {
      line,
      fields,
      email,
      invalidEmail,
      flags,
      extraData: cell(columns.extraData),
      foreignKey: foreignKey === '' ? undefined : foreignKey,
      attributes,
      attributeNames,
    },
  };
}
