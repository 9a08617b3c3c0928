import type { Transport } from './transport.js';
import type { DkimSigner } from '../mail/index.js';

/**
 * Campaign mail signed on its way out: the signer (a pool of signing threads, mail/dkim/pool.ts) puts DKIM-Signature
 * headers in front of the finished buffers, which then go to the transport as they are. Mail from a domain without a
 * key passes unsigned. Closing the transport ends the signer's threads.
 */
export function signingTransport(inner: Transport, signer: DkimSigner): Transport {
  return {
    kind: inner.kind,
    async send(message) {
      return inner.send({ ...message, raw: await signer.sign(message.raw) });
    },
    close: async () => {
      await Promise.all([inner.close(), signer.close()]);
    },
  };
}
