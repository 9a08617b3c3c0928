import type { AppContext } from '../context.js';
import type { MailKind, MailToQueue } from './mail-queue.js';

/*
 * Mail queued by reference (issue 22 follow-up): the row names what to send (its kind) and to whom (one id the kind
 * understands), and the drainer renders it when it sends. An import asking for confirmations then writes a few dozen
 * bytes a subscriber in one `insert … select … from unnest`, instead of rendering and storing each mail (~1.2 KB).
 *
 * Rendering needs the area that owns the id (a subscriber: `subscription`), which sits above `mail` in the area order
 * (eslint.config.js), so `mail` cannot import it. The inversion: the owning area hands `mail` a renderer for its
 * kind at start-up (`registerMailRenderer`, called from buildApp through the area's door), and the drainer looks the
 * renderer up by the row's kind. The registry is kept per application, as the drainers are, so that each test app
 * and each process renders with what it registered, and a process that registered nothing fails loudly.
 */

/**
 * Renders the mails of one kind queued by reference, at drain time, in one go for a claimed batch. Answers the mail
 * for each id that still wants one; an id left out (its subject is gone, or no longer wants the mail) is dropped
 * from the queue without sending. Throwing fails the attempt of every row of the batch: they are retried.
 */
export type MailRenderer = (ctx: AppContext, ids: readonly number[]) => Promise<ReadonlyMap<number, MailToQueue>>;

const registries = new WeakMap<AppContext, Map<string, MailRenderer>>();

/** Makes `kind` queueable by reference in this application (`queueMailReferences`); one renderer a kind. */
export function registerMailRenderer(ctx: AppContext, kind: MailKind, render: MailRenderer): void {
  let registry = registries.get(ctx);
  if (!registry) registries.set(ctx, (registry = new Map()));
  if (registry.has(kind) && registry.get(kind) !== render) throw new Error(`mail queue: a renderer for ${kind} is already registered`);
  registry.set(kind, render);
}

/** The renderer of `kind` in this application, if one was registered. */
export function rendererOf(ctx: AppContext, kind: string): MailRenderer | undefined {
  return registries.get(ctx)?.get(kind);
}
