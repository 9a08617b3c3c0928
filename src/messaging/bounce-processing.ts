import type { AppContext } from '../context.js';
import type { Executor } from '../db/client.js';
import { BounceRuleTimeoutError, compileBounceRule, matchesBounceRule, withinDeadline, type BounceRulePattern } from './bounce-rule.pattern.js';
import { consecutiveWalk, decideBounce, type BounceAction, type BounceFacts, type BounceMatch, type MatchedBy } from './bounce-decision.js';
import * as repo from './bounce-processing.repository.js';
import { deliveryOfAddresses } from '../mail/index.js';
import { DEFAULT_READ_TIMEOUT_MS, readBounce, type BounceKind, type BounceReport } from './dsn.js';
import { bouncesTotal } from '../shared/metrics.js';
import { isWebhookWanted, recordWebhookEvent } from '../webhooks/index.js';

/*
 * Bounce processing (issue 6): a bounce message, from the mailbox or POST /bounces/inbound, is read (dsn.ts) and
 * then matched to what was sent (bounce-processing.repository.ts, matchBounce: the order of certainty), stored
 * once and acted on, atomically, in one statement under the subscriber's row lock; what it does is decided in bounce-decision.ts:
 *
 * 1. the first active bounce rule (list_order, id) whose pattern matches the bounce text applies its action
 *    (reference §5.16) and counts the match;
 * 2. unless that rule declared the message no bounce (`deletebounce`, `decreasecountconfirmuseranddeletebounce`), a
 *    failure that is not a complaint counts as a bounce of the subscriber and of the campaign, and
 *    - a hard bounce (5.x.x) or a complaint blacklists the address at once;
 *    - otherwise the consecutive-bounce thresholds apply: BOUNCE_BLACKLIST_THRESHOLD blacklists,
 *      BOUNCE_UNCONFIRM_THRESHOLD unconfirms;
 * 3. the subscriber's history says what happened and why.
 *
 * A report that is not a failure (a "delivered" DSN) is stored and nothing else happens.
 *
 * The campaign's bounce count, its counters row and the rule's match count are added to a moment later, not in the
 * bounce's transaction (bounce-counts.ts; why in 040_bounce_counts.sql, "Durability"): foldBounceCounts does it now.
 */

export type { BounceAction, MatchedBy };

export interface BounceOutcome {
  /** The bounce's id (gone from the table when a rule deleted it: see the `bounce_deleted` action). */
  readonly id: number;
  readonly status: string;
  readonly kind: BounceKind | null;
  readonly campaignId: number | null;
  readonly subscriberId: number | null;
  readonly matchedBy: MatchedBy | null;
  readonly ruleId: number | null;
  readonly duplicate: boolean;
  readonly actions: readonly BounceAction[];
}

export type BounceSource = 'http' | 'mailbox';

export interface ActiveRule {
  readonly id: number;
  readonly action: string;
  readonly pattern: BounceRulePattern | null;
}

/**
 * The active rules are read at most every RULES_TTL_MS per process (each bounce would otherwise read them), and at
 * once after this process changed a rule (bounce-rule.service calls invalidateBounceRules); another process's
 * change applies within that time.
 */
const RULES_TTL_MS = 2000;
/** Per database (tests run several in one process). */
let rulesCache = new WeakMap<Executor, { at: number; rules: Promise<ActiveRule[]> }>();
const compiled = new Map<string, BounceRulePattern | null>();

export function invalidateBounceRules(): void {
  rulesCache = new WeakMap();
}

/** The active rules in the order they apply, compiled (a pattern stored before the checks existed never matches). */
export function loadActiveRules(db: Executor): Promise<ActiveRule[]> {
  const cached = rulesCache.get(db);
  if (cached && Date.now() - cached.at < RULES_TTL_MS) return cached.rules;
  const rules = repo.activeRules(db).then((rows) => rows.map((r) => ({ id: r.id, action: r.action, pattern: compile(r.regex) })));
  rulesCache.set(db, { at: Date.now(), rules });
  rules.catch(() => rulesCache.delete(db));
  return rules;
}

function compile(regex: string): BounceRulePattern | null {
  if (!compiled.has(regex)) {
    if (compiled.size > 1000) compiled.clear();
    try {
      compiled.set(regex, compileBounceRule(regex));
    } catch {
      compiled.set(regex, null);
    }
  }
  return compiled.get(regex) ?? null;
}

/**
 * Processes one raw bounce message. Throws MessageFormatError (dsn.ts) when the bytes are not an e-mail.
 * `rules`: the active rules, when the caller processes a batch with one set. `envelopeRecipient`: the address the
 * message was delivered to (the SMTP RCPT TO), when the caller knows it.
 */
export async function processBounce(
  ctx: AppContext,
  raw: Buffer,
  source: BounceSource,
  rules?: readonly ActiveRule[],
  envelopeRecipient?: string,
): Promise<BounceOutcome> {
  const read = readBounce(raw, ctx.config.bounces.readTimeoutMs);
  // The address the bounce was delivered to, as the mail server's pipe knows it: where a VERP token is surest.
  const report = envelopeRecipient ? { ...read, addressedTo: [envelopeRecipient, ...read.addressedTo] } : read;
  const active = rules ?? (await loadActiveRules(ctx.db));
  // A "delivered" report is no failure: nothing to match rules against.
  const rule = report.kind === null ? null : firstMatchingRule(ctx, active, report.text);
  const outcome = await record(ctx, report, rule, source);
  // By what it was (`bounced_list_message`, `complaint`, `unidentified` …), or `duplicate` when seen before.
  bouncesTotal.inc({ outcome: outcome.duplicate ? 'duplicate' : outcome.status.replaceAll(' ', '_') });
  return outcome;
}

/**
 * The first active rule whose pattern matches, under the same deadline as reading (BOUNCE_READ_TIMEOUT_MS, issue
 * 23): rules that take longer are cut off, the bounce is recorded as if no rule matched, and the log says so.
 */
function firstMatchingRule(ctx: AppContext, rules: readonly ActiveRule[], text: string): ActiveRule | null {
  try {
    return withinDeadline(
      ctx.config.bounces.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS,
      () => rules.find((r) => r.pattern && matchesBounceRule(r.pattern, text)) ?? null,
    );
  } catch (err) {
    if (!(err instanceof BounceRuleTimeoutError)) throw err;
    ctx.log.warn(
      { timeoutMs: ctx.config.bounces.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS, rules: rules.length },
      'bounce rules cut off by the deadline; recorded without a rule',
    );
    return null;
  }
}

/**
 * Adds the counts of every bounce recorded so far (by any process) to the campaigns' bounce counts, their counters
 * and the rules' match counts, now rather than at the next periodic fold; answers how many bounces' counts it added.
 */
export function foldBounceCounts(ctx: AppContext): Promise<number> {
  return ctx.bounceCounts.fold();
}

/** What the bounce was: a short label (`Hard bounce 5.1.1`) and the same with the server's diagnostic. */
function describe(report: BounceReport): { label: string; description: string } {
  const code = report.status ? ` ${report.status}` : '';
  const why = report.diagnostic ? `: ${report.diagnostic}` : '';
  switch (report.kind) {
    case 'hard':
      return { label: `Hard bounce${code}`, description: `Hard bounce${code}${why}` };
    case 'soft':
      return { label: `Soft bounce${code}`, description: `Soft bounce${code}${why}` };
    case 'complaint':
      return { label: `Complaint (${report.action})`, description: `Complaint (feedback type ${report.action})` };
    case 'unknown':
      return { label: 'Bounce without a status code', description: `Bounce without a status code${why}` };
    default: {
      const label = `Delivery report (${report.action ?? report.status ?? 'not a failure'})`;
      return { label, description: `${label}, not a failure` };
    }
  }
}

/** PostgreSQL text cannot hold NUL characters; a bounce may carry them. */
const strip = (text: string) => text.split('\u0000').join('');

/** A concurrent bounce of the same subscriber makes the write stale; this many tries are more than enough. */
const MAX_TRIES = 20;

/**
 * Matches, decides (bounce-decision.ts) and writes: two statements, the write atomic under the subscriber's row
 * lock and only if the row is still as matched (else matched and decided again).
 */
async function record(ctx: AppContext, report: BounceReport, rule: ActiveRule | null, source: BounceSource): Promise<BounceOutcome> {
  const { label, description } = describe(report);
  const facts: BounceFacts = {
    kind: report.kind,
    label,
    description: strip(description),
    rule: rule && { id: rule.id, action: rule.action },
    source,
  };
  const thresholds = { unconfirm: ctx.config.bounces.unconfirmThreshold, blacklist: ctx.config.bounces.blacklistThreshold };
  const evidence = {
    verpDeliveryId: deliveryOfAddresses(ctx.secrets.linkToken, report.addressedTo),
    returned: report.returned,
    recipient: report.recipient,
  };
  const texts = {
    key: report.key,
    kind: report.kind,
    comment: strip(description).slice(0, 1000),
    header: strip(report.header),
    data: strip(report.text),
  };
  const walk = consecutiveWalk(facts, thresholds);
  // A failure is reported to webhook endpoints that want it, in the bounce's transaction; when none does (the
  // usual case, a cached answer), the bounce is written as one prepared statement, as before.
  const event = report.kind === null ? null : report.kind === 'complaint' ? 'complaint.recorded' : 'bounce.recorded';
  const reported = event !== null && (await isWebhookWanted(ctx.db, event));
  for (let attempt = 1; ; attempt++) {
    const { bounceId, match } = await repo.matchBounce(ctx.db, evidence, walk);
    const decision = decideBounce(bounceId, facts, match, thresholds);
    const written = !reported
      ? await repo.writeBounce(ctx.db, bounceId, texts, match, decision)
      : await ctx.db.transaction(async (tx) => {
          const outcome = await repo.writeBounce(ctx.db, bounceId, texts, match, decision, tx);
          if (outcome === 'written') {
            await recordWebhookEvent(tx, event, {
              bounce: { id: bounceId, status: decision.status, kind: report.kind, label, rule_id: rule?.id ?? null },
              campaign_id: decision.campaignId,
              subscriber_id: match.subscriber?.id ?? null,
              actions: decision.actions,
            });
          }
          return outcome;
        });
    if (written === 'written') {
      ctx.bounceCounts.recorded();
      return {
        id: bounceId,
        status: decision.status,
        kind: report.kind,
        campaignId: decision.campaignId,
        subscriberId: match.subscriber?.id ?? null,
        matchedBy: match.matchedBy,
        ruleId: rule?.id ?? null,
        duplicate: false,
        actions: decision.actions,
      };
    }
    if (written === 'duplicate') return duplicateOutcome(await repo.receiptOf(ctx.db, report.key), match, report.kind);
    if (attempt >= MAX_TRIES) throw new Error('bounce processing: the subscriber changed under every try');
  }
}

/** Processed before: what was stored then (unless a rule deleted the bounce), nothing done again. */
function duplicateOutcome(receipt: repo.Receipt, match: BounceMatch, kind: BounceKind | null): BounceOutcome {
  const kept = receipt.kept;
  const status =
    match.subscriber === null
      ? 'unidentified'
      : kind === 'complaint'
        ? 'complaint'
        : match.campaignId === null
          ? 'bounced subscriber'
          : 'bounced list message';
  return {
    id: receipt.bounceId,
    status: kept?.status ?? status,
    kind: kept ? parseKind(kept.kind) : kind,
    campaignId: kept ? kept.campaignId : match.campaignId,
    subscriberId: kept ? kept.subscriberId : (match.subscriber?.id ?? null),
    matchedBy: match.matchedBy,
    ruleId: null,
    duplicate: true,
    actions: [],
  };
}

const KINDS: readonly BounceKind[] = ['hard', 'soft', 'complaint', 'unknown'];
const parseKind = (kind: string | null): BounceKind | null => KINDS.find((k) => k === kind) ?? null;
