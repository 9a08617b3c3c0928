/**
 * Subscriber attribute types (the API's names, reference §7.7) in the order the type menu offers them, each with the
 * words an operator reads instead of phpList's name.
 */
export const TYPE_LABELS = {
  textline: 'Text (one line)',
  textarea: 'Text (several lines)',
  checkbox: 'Checkbox (yes or no)',
  select: 'Drop-down list (one choice)',
  radio: 'Radio buttons (one choice)',
  checkboxgroup: 'Checkboxes (any number of choices)',
  date: 'Date',
  hidden: 'Hidden (not shown on forms)',
  creditcardno: 'Card number',
} as const;

export type AttributeTypeName = keyof typeof TYPE_LABELS;
export const TYPES = Object.keys(TYPE_LABELS) as AttributeTypeName[];

/** A stored type in plain words; a type this console does not know (a legacy row) shows as stored. */
export function typeLabel(type: string | null): string {
  if (type === null) return '—';
  return Object.hasOwn(TYPE_LABELS, type) ? TYPE_LABELS[type as AttributeTypeName] : type;
}
