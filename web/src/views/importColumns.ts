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
