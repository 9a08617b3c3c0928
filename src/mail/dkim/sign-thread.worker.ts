import { parentPort, workerData } from 'node:worker_threads';
import type { DkimKey } from '../../shared/dkim-keys.js';
import type { SignReply, SignRequest, ThreadMessage } from './pool.js';
import { createDkimSigner } from './signer.js';

/*
 * A signing thread (pool.ts): its own signer over the keys it was started with, signing inline. Buffers sent in many
 * messages (a campaign's attachment tail) arrive once and are kept by id, so the signer recognises them as the same
 * buffer and hashes their prepared canonical form.
 */

const port = parentPort!;
const { keys } = workerData as { keys: DkimKey[] };
let unsigned: string | undefined;
const signer = createDkimSigner(keys, { inline: true, onUnsigned: (domain) => (unsigned = domain) });
const shared = new Map<number, Buffer>();

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

async function signOne(request: SignRequest): Promise<SignReply> {
  for (const [id, bytes] of request.share ?? []) shared.set(id, asBuffer(bytes));
  const raw = request.parts.map((part) => (typeof part === 'number' ? shared.get(part)! : asBuffer(part)));
  unsigned = undefined;
  // The From domain is looked up before the first await: read what it reported before another message can.
  const signing = signer.headers(raw);
  const domain = unsigned;
  const headers = await signing;
  return domain === undefined ? { id: request.id, headers } : { id: request.id, headers, unsigned: domain };
}

port.on('message', (message: ThreadMessage) => {
  if ('forget' in message) {
    for (const id of message.forget) shared.delete(id);
    return;
  }
  signOne(message).then(
    (reply) => port.postMessage(reply),
    (err: unknown) => port.postMessage({ id: message.id, headers: null, error: err instanceof Error ? err.message : String(err) }),
  );
});
