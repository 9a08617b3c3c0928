/**
 * The console's one way of writing dates: "27 Nov 2026" and "27 Nov 2026, 18:40" (British English order, month in
 * words so that no reader takes 03/04 for the wrong month), times in the browser's zone. Every page renders dates
 * through here.
 *
 * The API writes instants as ISO 8601 (`2026-11-27T18:40:00+00:00`), phpList's analytics as `YYYY-MM-DD HH:MM:SS` in
 * UTC, and days as `YYYY-MM-DD` (a UTC day). A day is written as that day wherever the reader is; the others are
 * instants, shown in the reader's zone.
 */

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const UTC_WITH_SPACE = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}(?::\d{2})?)$/;

const dayFormat = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium' });
const utcDayFormat = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'UTC' });
const timeFormat = new Intl.DateTimeFormat('en-GB', { timeStyle: 'short' });
const dateTimeFormat = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' });

/** An instant read from what the API writes, or null when the text is not a date. */
export function parseInstant(value: string): Date | null {
  const spaced = UTC_WITH_SPACE.exec(value);
  const date = new Date(spaced ? `${spaced[1]}T${spaced[2]}Z` : DAY.test(value) ? `${value}T00:00:00Z` : value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The day alone: "27 Nov 2026"; — for none; text that is not a date as it is. */
export function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  const date = parseInstant(value);
  if (!date) return value;
  return (DAY.test(value) ? utcDayFormat : dayFormat).format(date);
}

/** The day and the time: "27 Nov 2026, 18:40"; a bare day as formatDate; — for none; text that is not a date as it is. */
export function formatDateTime(value: string | null | undefined): string {
  if (!value) return '—';
  if (DAY.test(value)) return formatDate(value);
  const date = parseInstant(value);
  return date ? dateTimeFormat.format(date) : value;
}

/** The time alone: "18:40" (for layouts that put it apart from the day, see ui/data's DateTime). */
export function formatTime(date: Date): string {
  return timeFormat.format(date);
}
