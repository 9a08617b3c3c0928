/** What the import does with each column of a CSV header (the rules of docs/api.md, "Import and export"). */
export type ColumnUse =
  { kind: 'field'; label: string } | { kind: 'attribute'; label: string } | { kind: 'never'; label: string } | { kind: 'unknown'; label: string };

const FIELDS: Record<string, string> = {
  email: 'E-mail address',
  confirmed: 'Confirmed',
  blacklisted: 'Blacklisted',
  html_email: 'Prefers HTML mail',
  disabled: 'Disabled',
  extra_data: 'Extra data',
  foreignkey: 'Foreign key',
  foreign_key: 'Foreign key',
};

/** The header line's cells: `,` or `;`, whichever the line has more of outside quotes; quotes taken off. */
export function headerCells(text: string): string[] {
  const source = text.replace(/^\uFEFF/, '');
  let inQuotes = false;
  let end = source.length;
  let commas = 0;
  let semicolons = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (c === '\n' || c === '\r')) {
      end = i;
      break;
    } else if (!inQuotes && c === ',') commas++;
    else if (!inQuotes && c === ';') semicolons++;
  }
  const delimiter = semicolons > commas ? ';' : ',';
  const line = source.slice(0, end);
  const cells: string[] = [];
  let cell = '';
  inQuotes = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') {
      if (inQuotes && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else inQuotes = !inQuotes;
    } else if (c === delimiter && !inQuotes) {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  cells.push(cell.trim());
  return cells.filter((c, i) => c !== '' || i < cells.length - 1);
}

/** `attributes` are the definitions' names, or null when the administrator may not read them. */
export function columnUse(name: string, attributes: string[] | null): ColumnUse {
  const key = name.toLowerCase();
  if (FIELDS[key]) return { kind: 'field', label: FIELDS[key] };
  if (key === 'password' || key === 'modified') return { kind: 'never', label: 'Never imported' };
  if (attributes === null) return { kind: 'unknown', label: 'An attribute if one has this name (you may not see the definitions)' };
  const match = attributes.find((a) => a.toLowerCase() === key);
  return match ? { kind: 'attribute', label: `Attribute “${match}”` } : { kind: 'unknown', label: 'Ignored: no field or attribute has this name' };
}

/** An attribute definition as the mapping offers it. */
export interface MappableAttribute {
  id: number;
  name: string;
}

/**
 * One column's use as the import's `columns` option says it: `email`, a subscriber field, `attr:<id>`, or `''` (not
 * imported). The value of the column's menu.
 */
export type ColumnChoice = string;

const FIELD_CHOICES: [string, string][] = [
  ['email', 'E-mail address'],
  ['confirmed', 'Confirmed'],
  ['blacklisted', 'Blacklisted'],
  ['html_email', 'Prefers HTML mail'],
  ['disabled', 'Disabled'],
  ['extra_data', 'Extra data'],
  ['foreignkey', 'Foreign key'],
];

/** `first_name` → "First name": how an attribute's name is shown to people. */
export function attributeLabel(name: string): string {
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words === '' ? name : words[0]!.toUpperCase() + words.slice(1);
}

/** The menu of one column: email, "Don't import", the subscriber fields, then each attribute by its label. */
export function columnChoices(attributes: readonly MappableAttribute[]): { value: ColumnChoice; label: string }[] {
  return [
    { value: 'email', label: 'E-mail address' },
    { value: '', label: 'Don’t import' },
    ...FIELD_CHOICES.slice(1).map(([value, label]) => ({ value, label })),
    ...attributes.map((a) => ({ value: `attr:${a.id}`, label: `Attribute: ${attributeLabel(a.name)}` })),
  ];
}

const loose = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '');

/**
 * The automatic guess for each column: a subscriber field by its name (`foreign_key`, `E-mail` too), an attribute
 * whose name or label matches ignoring case, spaces and punctuation (`First name` finds `first_name`), else not
 * imported; a place already taken by an earlier column is not guessed twice.
 */
export function guessColumns(header: readonly string[], attributes: readonly MappableAttribute[]): ColumnChoice[] {
  const taken = new Set<string>();
  const aliases: Record<string, string> = {
    mail: 'email',
    emailaddress: 'email',
    foreignkey: 'foreignkey',
    htmlemail: 'html_email',
    extradata: 'extra_data',
  };
  return header.map((name) => {
    const key = loose(name);
    const field = FIELD_CHOICES.find(([value]) => loose(value) === key)?.[0] ?? aliases[key];
    const attribute = attributes.find((a) => loose(a.name) === key);
    const guess = field ?? (attribute ? `attr:${attribute.id}` : '');
    if (guess === '' || taken.has(guess)) return '';
    taken.add(guess);
    return guess;
  });
}

/** The `columns` option: header name → `email`, a field, an attribute id, or null. */
export function columnsOption(header: readonly string[], choices: readonly ColumnChoice[]): Record<string, string | number | null> {
  const mapping: Record<string, string | number | null> = {};
  header.forEach((name, i) => {
    if (name === '' || name in mapping) return;
    const choice = choices[i] ?? '';
    mapping[name] = choice === '' ? null : choice.startsWith('attr:') ? Number(choice.slice(5)) : choice;
  });
  return mapping;
}
