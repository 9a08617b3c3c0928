/**
 * Formats a timestamp as phpList does (PHP's DATE_ATOM in UTC): `2026-11-22T09:30:00+00:00`,
 * no fraction, a numeric offset.
 */
export function toAtom(date: Date): string;
export function toAtom(date: Date | null | undefined): string | null;
export function toAtom(date: Date | null | undefined): string | null {
  if (!date) return null;
  return date.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}
