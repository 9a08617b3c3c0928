/*
 * How a placeholder's name is written and read (reference §7.3). Campaign rendering (sending/compose) finds
 * placeholders with these rules, and an attribute definition's answer shows its own placeholder with them
 * (subscription), so both live below every area: one derivation.
 */

/**
 * What a placeholder's name may hold: no brackets, and none of the characters of URLs and markup (`/ : < > "`) nor
 * `%` (the `%%default` separator), so bracketed URLs and CSS or conditional-comment brackets are not taken for
 * placeholders. A regular-expression source, one to 80 characters.
 */
export const PLACEHOLDER_NAME = '[^[\\]<>"/:%\\r\\n]{1,80}';
const WHOLE_NAME = new RegExp(`^${PLACEHOLDER_NAME}$`);

/** `first&nbsp; name` → `FIRST NAME` (reference §7.3: case-insensitive, inner white space normalised). */
export function normaliseName(name: string): string {
  return name
    .replace(/&nbsp;|\u00a0/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toUpperCase();
}

/**
 * The placeholder a campaign writes for the attribute called `name` (`First name` → `[FIRST NAME]`), or null when no
 * placeholder can name it (a name holding `:` or `/`, say, is never read as one).
 */
export function attributePlaceholder(name: string): string | null {
  const normalised = normaliseName(name);
  return WHOLE_NAME.test(normalised) ? `[${normalised}]` : null;
}
