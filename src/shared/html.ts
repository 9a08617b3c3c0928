const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML content and attribute values (pages, mail bodies). Unchanged text is not copied. */
export function escapeHtml(value: string): string {
  return /[&<>"']/.test(value) ? value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!) : value;
}
