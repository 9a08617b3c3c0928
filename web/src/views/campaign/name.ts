/*
 * What the console calls a campaign (issue 26): its name, else (campaigns made before names existed) its subject.
 * Either may hold placeholders, which read badly as titles ("Hello [FIRST NAME%%you]"), so they are shown as readable
 * tokens ("Hello ‹First name›").
 */

// A placeholder as the composer writes them: upper-case name, optional %%default. Bounded, so linear on any input.
const PLACEHOLDER = /\[([A-Z][A-Z0-9 _-]{0,63})(?:%%[^\]]{0,255})?\]/g;

/** `[FIRST NAME%%you]` → `‹First name›`; the rest as written. */
export function readablePlaceholders(text: string): string {
  return text.replace(PLACEHOLDER, (_, name: string) => {
    const words = name.trim().replace(/_/g, ' ').toLowerCase();
    return `‹${words.charAt(0).toUpperCase()}${words.slice(1)}›`;
  });
}

/** The campaign's name for tables and titles. */
export function campaignName(name: string | null | undefined, subject: string | null | undefined, id?: number): string {
  const text = readablePlaceholders((name ?? '').trim() || (subject ?? '').trim());
  return text || (id === undefined ? 'Untitled campaign' : `Campaign ${id}`);
}

/** The same, from a campaign as the API answers it. */
export const nameOf = (c: { id?: number; message_content: { name?: string | null; subject: string } }) =>
  campaignName(c.message_content.name, c.message_content.subject, c.id);
