import type { BounceKind } from './dsn.js';

/*
 * What a bounce does, decided without the database: which rule applies and what it asks for, whether the bounce
 * counts, whether the subscriber is blacklisted, unconfirmed, confirmed or deleted, the thresholds, and the texts of
 * the history and of the answer. bounce-processing.ts gathers the facts (the message read by dsn.ts, the first
 * matching rule, the match from bounce-processing.repository.ts with the subscriber's row locked) and writes what
 * this answers in one statement; this file is the one place the rules live (tests: test/messaging/bounce-decision.test.ts).
 *
 * Certainty (issue 14): a bounce acts on a subscriber — blacklists, unconfirms, confirms, deletes — only when it is
 * certainly a bounce of mail Mailroom sent to that subscriber: matched by its VERP token, or by the headers of the
 * returned message or header part carrying a proof that cannot be guessed (the subscriber's uid, the delivery's full
 * Message-ID; issue 23: a delivery number alone is sequential). A bounce matched only by the failed address, by a
 * delivery number alone, or by header lines quoted in its text (anyone can write them), is recorded and does nothing by itself; it counts (bounce count, campaign, the consecutive run a later
 * certain bounce looks at) only when it names a delivery that was really sent to the failed address.
 */

export type MatchedBy = 'verp' | 'delivery' | 'campaign_subscriber' | 'message_id' | 'recipient';

export interface BounceAction {
  readonly action: 'counted' | 'blacklisted' | 'unconfirmed' | 'confirmed' | 'subscriber_deleted' | 'bounce_deleted';
  readonly reason: string;
}

/** What the message says (dsn.ts), in the words history and answers use. */
export interface BounceFacts {
  readonly kind: BounceKind | null;
  /** `Hard bounce 5.1.1` */
  readonly label: string;
  /** The label with the server's diagnostic. */
  readonly description: string;
  /** The first active rule whose pattern matches the text (reference §5.16), if any. */
  readonly rule: { readonly id: number; readonly action: string } | null;
  readonly source: 'http' | 'mailbox';
}

export interface MatchedSubscriber {
  readonly id: number;
  readonly email: string;
  readonly confirmed: boolean;
  readonly blacklisted: boolean;
  /** As read: the write checks it is unchanged (bounce-processing.repository.ts, writeBounce). */
  readonly bounceCount: number;
  /** The address is in the blacklist table already (a rule blacklisting it then changes nothing there). */
  readonly listed: boolean;
}

/** What the bounce was matched to; the write locks the subscriber's row and checks it is still as read here. */
export interface BounceMatch {
  readonly matchedBy: MatchedBy | null;
  /**
   * The match rests on something that cannot be guessed: a VERP token, the subscriber's 128-bit uid or the
   * delivery's full Message-ID (not a sequential delivery or campaign number alone).
   */
  readonly proven: boolean;
  readonly deliveryId: number | null;
  readonly campaignId: number | null;
  readonly subscriber: MatchedSubscriber | null;
  /** Where the returned headers were found: a returned message or header part, or lines of the text (null: none). */
  readonly headersIn: 'part' | 'text' | null;
  /** The failed address the bounce names is the subscriber's (null: it names none). */
  readonly failedAddressMatches: boolean | null;
  /** The matched delivery has been sent. */
  readonly deliverySent: boolean;
  /** The subscriber's latest sent deliveries, this one included, that bounced without a break (0: not looked at). */
  readonly consecutive: number;
}

export interface Thresholds {
  /** Consecutive bounces that unconfirm (0: never). */
  readonly unconfirm: number;
  /** Consecutive bounces that blacklist (0: never). */
  readonly blacklist: number;
}

export interface BounceDecision {
  readonly status: string;
  /** Store the bounce row (a rule may delete it: only the receipt is kept then). */
  readonly store: boolean;
  readonly campaignId: number | null;
  readonly subscriberId: number | null;
  /** Stored on the bounce: what the consecutive run of later bounces looks at. */
  readonly deliveryId: number | null;
  readonly counted: boolean;
  /** The subscriber's row after the bounce; null: untouched (none, or deleted). */
  readonly subscriber: {
    readonly id: number;
    readonly confirmed: boolean;
    readonly blacklisted: boolean;
    /** confirmed or blacklisted changed (updated_at moves). */
    readonly changed: boolean;
  } | null;
  readonly deleteSubscriber: number | null;
  readonly blacklist: readonly { readonly email: string; readonly reason: string }[];
  readonly history: readonly { readonly summary: string; readonly detail: string }[];
  readonly systemInfo: string;
  /** One row for the shared counts folded later (bounce-counts.ts); null: none. */
  readonly increment: { readonly campaignId: number | null; readonly ruleId: number | null } | null;
  readonly actions: readonly BounceAction[];
}

/** What a rule's action (reference §5.16) asks for. */
export function ruleEffects(action: string) {
  return {
    blacklist: action.startsWith('blacklistuser') || action.startsWith('blacklistemail'),
    unconfirm: action.startsWith('unconfirmuser'),
    confirm: action === 'decreasecountconfirmuseranddeletebounce',
    deleteSubscriber: action.startsWith('deleteuser'),
    deleteBounce: action.endsWith('deletebounce') || action === 'deleteuserandbounce',
    // These two say the message is no bounce (an auto-reply, noise): not counted, nothing automatic.
    noBounce: action === 'deletebounce' || action === 'decreasecountconfirmuseranddeletebounce',
  };
}

/** How many of the latest deliveries the consecutive run needs to look at; 0: it is not needed for this bounce. */
export function consecutiveWalk(facts: BounceFacts, thresholds: Thresholds): number {
  const effects = facts.rule ? ruleEffects(facts.rule.action) : null;
  const countedKind = facts.kind !== null && facts.kind !== 'complaint' && !effects?.noBounce;
  if (!countedKind || facts.kind === 'hard') return 0;
  return Math.max(thresholds.blacklist, thresholds.unconfirm, 0);
}

/** Certainly a bounce of mail sent to this subscriber (see above). */
export function isCertain(match: BounceMatch): boolean {
  if (match.subscriber === null || match.matchedBy === null) return false;
  if (match.matchedBy === 'verp') return true;
  // The returned message's own headers: the failed address may differ (a subscriber's forwarding address). They
  // must prove it (issue 23): anyone can write `X-Mailroom-Delivery: 2`.
  return match.matchedBy !== 'recipient' && match.headersIn === 'part' && match.proven;
}

/** An uncertain bounce still counts when it names a delivery that was really sent to the failed address it names. */
export function namesDeliverySentToFailedAddress(match: BounceMatch): boolean {
  return match.deliveryId !== null && match.deliverySent && match.failedAddressMatches === true;
}

export function decideBounce(bounceId: number, facts: BounceFacts, match: BounceMatch, thresholds: Thresholds): BounceDecision {
  const rule = facts.rule;
  const effects = rule ? ruleEffects(rule.action) : null;
  const failure = facts.kind !== null;
  const sub = match.subscriber;
  // Only a certain match acts; an uncertain one counts only when it names a delivery really sent to that address.
  const certain = isCertain(match);
  const acts = sub !== null && certain;
  const countedKind = failure && facts.kind !== 'complaint' && !effects?.noBounce;
  const counted = countedKind && sub !== null && (certain || namesDeliverySentToFailedAddress(match));
  const automatic = failure && !effects?.noBounce;
  const immediate = facts.kind === 'hard' || facts.kind === 'complaint';

  const campaign = match.campaignId === null ? 'no campaign' : `campaign ${match.campaignId}`;
  const about = `${facts.label} (${campaign}, bounce ${bounceId})`;
  const ruleReason = rule ? `Bounce rule ${rule.id} (${rule.action}) matched ${about}` : '';
  const thresholdReason = `${match.consecutive} consecutive bounces, threshold reached`;
  const status =
    sub === null
      ? 'unidentified'
      : facts.kind === 'complaint'
        ? 'complaint'
        : match.campaignId === null
          ? 'bounced subscriber'
          : 'bounced list message';

  const deleted = acts && effects?.deleteSubscriber === true;
  const actions: BounceAction[] = [];
  const history: { summary: string; detail: string }[] = [];
  const blacklist: { email: string; reason: string }[] = [];
  let after: BounceDecision['subscriber'] = null;
  // The rule's notes come before the automatic ones, in history and in the answer, as they happen;
  // a subscriber deleted by the rule comes between them.
  const autoActions: BounceAction[] = [];
  const autoHistory: { summary: string; detail: string }[] = [];
  function note(action: BounceAction['action'], summary: string, reason: string) {
    actions.push({ action, reason });
    history.push({ summary, detail: reason });
  }
  function autoNote(action: BounceAction['action'], summary: string, reason: string) {
    autoActions.push({ action, reason });
    autoHistory.push({ summary, detail: reason });
  }

  if (sub !== null && !deleted) {
    let confirmed = sub.confirmed;
    let blacklisted = sub.blacklisted;
    const unsure = certain
      ? ''
      : `; matched only by ${
          match.matchedBy === 'recipient'
            ? 'the failed address'
            : match.headersIn === 'part'
              ? 'a delivery number without the subscriber uid or Message-ID'
              : 'headers quoted in its text'
        }, so nothing was done`;
    history.push({
      summary: facts.kind === 'complaint' ? 'Complaint' : 'Bounce',
      detail: `${facts.description} (${campaign}, bounce ${bounceId})${unsure}`,
    });
    if (counted) actions.push({ action: 'counted', reason: `${about}: bounce count + 1` });
    if (acts && effects) {
      if (effects.blacklist) {
        blacklist.push({ email: sub.email, reason: ruleReason });
        if (!sub.listed || !blacklisted) note('blacklisted', 'Blacklisted', ruleReason);
        blacklisted = true;
      }
      if (effects.unconfirm && confirmed) {
        note('unconfirmed', 'Unconfirmed', ruleReason);
        confirmed = false;
      }
      if (effects.confirm && !confirmed) {
        note('confirmed', 'Confirmed', ruleReason);
        confirmed = true;
      }
    }
    // What happens on its own: a hard bounce or complaint blacklists, otherwise the thresholds.
    if (acts && automatic && !blacklisted) {
      if (immediate) {
        blacklist.push({ email: sub.email, reason: about });
        autoNote('blacklisted', 'Blacklisted', about);
        blacklisted = true;
      } else if (counted) {
        const n = match.consecutive;
        if (thresholds.blacklist > 0 && n >= thresholds.blacklist) {
          blacklist.push({ email: sub.email, reason: thresholdReason });
          autoNote('blacklisted', 'Blacklisted', thresholdReason);
          blacklisted = true;
        } else if (thresholds.unconfirm > 0 && n >= thresholds.unconfirm && confirmed) {
          autoNote('unconfirmed', 'Auto unconfirmed', thresholdReason);
          confirmed = false;
        }
      }
    }
    after = { id: sub.id, confirmed, blacklisted, changed: confirmed !== sub.confirmed || blacklisted !== sub.blacklisted };
  }
  if (deleted) actions.push({ action: 'subscriber_deleted', reason: ruleReason });
  actions.push(...autoActions);
  history.push(...autoHistory);
  if (effects?.deleteBounce) actions.push({ action: 'bounce_deleted', reason: `Bounce rule ${rule!.id} (${rule!.action})` });

  return {
    status,
    store: !effects?.deleteBounce,
    campaignId: match.campaignId,
    subscriberId: deleted || effects?.deleteSubscriber ? null : (sub?.id ?? null),
    // An uncounted, uncertain bounce must not join the consecutive run of its delivery.
    deliveryId: certain || counted ? match.deliveryId : null,
    counted,
    subscriber: after,
    deleteSubscriber: deleted ? sub!.id : null,
    blacklist,
    history: after === null ? [] : history,
    systemInfo: `Bounce processing (${facts.source === 'http' ? 'HTTP' : 'mailbox'})`,
    increment:
      (counted && match.campaignId !== null) || rule !== null ? { campaignId: counted ? match.campaignId : null, ruleId: rule?.id ?? null } : null,
    actions,
  };
}
