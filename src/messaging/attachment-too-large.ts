// Its own module so that both stores (attachment-storage.ts, attachment-db-storage.ts) throw it without importing
// each other.
/** Thrown by `put` when the stream carries more than `maxBytes`; nothing is stored. */
export class TooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`more than ${maxBytes} bytes`);
  }
}
