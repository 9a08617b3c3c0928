/*
 * A failed send as the log may show it. Mail errors quote the recipient: nodemailer's "all recipients were
 * rejected: 550 5.1.1 <jane@example.com>…", its `rejected` list, the server's `response`. The log gets the error's
 * code, the SMTP reply code and its message with every address masked, and nothing else.
 */

/** Characters around an address in server replies; splitting on them is linear, unlike an address regex. */
const SEPARATORS = /([\s<>()[\]"',;]+)/;

/** `jane@example.com` → `j***@example.com`, inside any text: enough to tell domains apart, not people. */
export function maskAddresses(text: string): string {
  return text
    .split(SEPARATORS)
    .map((token) => {
      const at = token.lastIndexOf('@');
      return at < 0 ? token : `${token.slice(0, Math.min(1, at))}***${token.slice(at)}`;
    })
    .join('');
}

/** The loggable part of a send failure: `{code, responseCode, message}` with addresses masked. */
export function mailFailure(err: unknown): { code?: string; responseCode?: number; message: string } {
  const { code, responseCode, message } = (err ?? {}) as { code?: unknown; responseCode?: unknown; message?: unknown };
  return {
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof responseCode === 'number' ? { responseCode } : {}),
    message: maskAddresses(typeof message === 'string' ? message : String(err)),
  };
}
