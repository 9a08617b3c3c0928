import { randomBytes } from 'node:crypto';

export type FormPart = { name: string; value: string } | { name: string; filename: string; content: string | Buffer; contentType?: string };

/** A multipart/form-data body built by hand, parts in the order given, for `inject`. */
export function multipart(parts: FormPart[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----mailroom${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if ('filename' in part) head += `; filename="${part.filename}"\r\nContent-Type: ${part.contentType ?? 'text/csv'}`;
    chunks.push(Buffer.from(`${head}\r\n\r\n`));
    chunks.push(Buffer.from('filename' in part ? part.content : part.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
