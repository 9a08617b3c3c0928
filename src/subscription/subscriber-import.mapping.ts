import { ValidationError } from '../shared/errors.js';
import type { DefinitionWithOptions } from './attribute.repository.js';
import type { Flag } from './subscriber-import.columns.js';

/*
 * The `columns` option of an import: which header column goes where, chosen by the administrator instead of renaming
 * headers. A JSON object from header name (as written, trimmed) to its use:
 *   "email"                       the address;
 *   null                          not imported;
 *   "confirmed", "blacklisted", "html_email", "disabled", "extra_data", "foreignkey"   that subscriber field;
 *   an integer                    the attribute definition with that id.
 * Columns the mapping does not name are matched by their header name as without a mapping.
 */

export type ColumnTarget =
  | { kind: 'email' }
  | { kind: 'ignore' }
  | { kind: 'flag'; flag: Flag }
  | { kind: 'extraData' }
  | { kind: 'foreignKey' }
  | { kind: 'attribute'; id: number };

export type ColumnMapping = ReadonlyMap<string, ColumnTarget>;

const FIELD_TARGETS: Record<string, ColumnTarget> = {
  email: { kind: 'email' },
  confirmed: { kind: 'flag', flag: 'confirmed' },
  blacklisted: { kind: 'flag', flag: 'blacklisted' },
  html_email: { kind: 'flag', flag: 'htmlEmail' },
  disabled: { kind: 'flag', flag: 'disabled' },
  extra_data: { kind: 'extraData' },
  foreignkey: { kind: 'foreignKey' },
};

/** Longest mapping text read (the form field limit is 64 KiB too); a header has at most a few hundred columns. */
const MAX_COLUMNS = 1000;

const refuse = (message: string) => ValidationError.field('columns', message);

/** Parses the option; empty or absent: no mapping (header names decide). Only the shape is checked here. */
export function parseColumnMapping(raw: string | undefined): ColumnMapping | null {
  if (raw === undefined || raw.trim() === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw refuse('This value should be a JSON object mapping header names to "email", null, a subscriber field or an attribute id.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw refuse('This value should be a JSON object mapping header names to "email", null, a subscriber field or an attribute id.');
  }
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (entries.length > MAX_COLUMNS) throw refuse(`Map at most ${MAX_COLUMNS} columns.`);
  const mapping = new Map<string, ColumnTarget>();
  for (const [name, value] of entries) {
    const header = name.trim();
    if (header === '') throw refuse('A header name in the mapping is empty.');
    if (mapping.has(header)) throw refuse(`"${header}" is mapped twice.`);
    mapping.set(header, targetOf(header, value));
  }
  return mapping;
}

function targetOf(header: string, value: unknown): ColumnTarget {
  if (value === null) return { kind: 'ignore' };
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 1 && value <= 2_147_483_647) return { kind: 'attribute', id: value };
    throw refuse(`"${header}" maps to ${value}, which is not an attribute id (a positive integer).`);
  }
  if (typeof value === 'string' && Object.hasOwn(FIELD_TARGETS, value)) return FIELD_TARGETS[value]!;
  throw refuse(
    `"${header}" maps to ${JSON.stringify(value)}: use "email", null (not imported), one of ` +
      `${Object.keys(FIELD_TARGETS)
        .filter((f) => f !== 'email')
        .join(', ')}, or an attribute id.`,
  );
}

/**
 * Checks the mapping against the file's header and the attribute definitions: every mapped name is a column of the
 * header, every attribute id exists, and one column at most goes to each target.
 */
export function checkMapping(mapping: ColumnMapping, header: readonly string[], definitions: readonly DefinitionWithOptions[]): void {
  const names = new Set(header.map((h) => h.trim()));
  const ids = new Set(definitions.map((d) => d.id));
  const taken = new Map<string, string>();
  for (const [name, target] of mapping) {
    if (!names.has(name)) {
      const shown = [...names].filter((n) => n !== '').slice(0, 20);
      throw refuse(`"${name}" is not a column of the file (its header has: ${shown.join(', ')}).`);
    }
    if (target.kind === 'attribute' && !ids.has(target.id)) {
      throw refuse(`"${name}" maps to attribute ${target.id}, which does not exist.`);
    }
    if (target.kind === 'ignore') continue;
    const key = targetLabel(target, definitions);
    const other = taken.get(key);
    if (other !== undefined) throw refuse(`"${other}" and "${name}" are both mapped to ${key}; map one column to it.`);
    taken.set(key, name);
  }
}

/** How a target is named in messages: `email`, the field's name, or `attribute "City"`. */
function targetLabel(target: ColumnTarget, definitions: readonly DefinitionWithOptions[]): string {
  if (target.kind === 'attribute') return `attribute "${definitions.find((d) => d.id === target.id)?.name ?? target.id}"`;
  return Object.entries(FIELD_TARGETS).find(([, t]) => sameTarget(t, target))![0];
}

export function sameTarget(a: ColumnTarget, b: ColumnTarget): boolean {
  if (a.kind === 'attribute' && b.kind === 'attribute') return a.id === b.id;
  if (a.kind === 'flag' && b.kind === 'flag') return a.flag === b.flag;
  return a.kind === b.kind;
}
