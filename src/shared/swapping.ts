/*
 * A sender whose inner sender can be replaced while it runs (issue 26: SMTP settings changed in the console apply
 * without a restart). Sends already under way finish on the sender they started on, which is closed once the last of
 * them has; new sends go to the replacement.
 */

export interface Closable<In, Out> {
  readonly kind: 'smtp' | 'outbox';
  send(message: In): Promise<Out>;
  close(): Promise<void>;
}

interface Generation<In, Out> {
  readonly sender: Closable<In, Out>;
  inFlight: number;
  retired: boolean;
}

export class Swapping<In, Out> implements Closable<In, Out> {
  private current: Generation<In, Out>;
  private readonly closing = new Set<Promise<void>>();

  constructor(first: Closable<In, Out>) {
    this.current = { sender: first, inFlight: 0, retired: false };
  }

  get kind(): 'smtp' | 'outbox' {
    return this.current.sender.kind;
  }

  /** New sends go to `next`; the previous sender is closed when its sends in flight are done. */
  replace(next: Closable<In, Out>): void {
    const old = this.current;
    this.current = { sender: next, inFlight: 0, retired: false };
    old.retired = true;
    if (old.inFlight === 0) this.retire(old);
  }

  async send(message: In): Promise<Out> {
    const used = this.current;
    used.inFlight++;
    try {
      return await used.sender.send(message);
    } finally {
      used.inFlight--;
      if (used.retired && used.inFlight === 0) this.retire(used);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.current.sender.close(), ...this.closing]);
  }

  private retire(generation: Generation<In, Out>): void {
    const closed = generation.sender.close().catch(() => undefined);
    this.closing.add(closed);
    void closed.finally(() => this.closing.delete(closed));
  }
}
