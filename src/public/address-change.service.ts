import { createHash } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Executor } from '../db/client.js';
import { mailQueued, queueMail } from '../mail/index.js';
import { driverCode } from '../shared/errors.js';
import { translator, type Lang } from '../shared/i18n.js';
import { takeStrict } from '../shared/rate-limit.js';
import { findSubscriberByUniqueId, insertHistory, isEmail, type HistoryOrigin, type SubscriberRow } from '../subscription/index.js';
import { preferences } from './messages/preferences.js';
import * as repo from './preferences.repository.js';
import { seal, unseal } from './sealed-token.js';

/*
 * The preference centre's address change (issues 13, 22, 23). The new address is asked first: a link mailed to it
 * makes the change. When the change is made, the old address is told, with a link that changes it back
 * (EMAIL_UNDO_DAYS), so that someone holding a subscriber's preference link cannot quietly take their mail over.
 * Both links are sealed tokens (sealed-token.ts: AES-GCM, nothing readable inside). Nothing here tells anyone about
 * another address: the request answers the same whether or not the new address is free. The mails are queued in the
 * transaction of what they report and leave after the answer.
 */

/** How long the link of an address-change mail is good. */
export const EMAIL_CHANGE_DAYS = 2;
/** How long the old address's undo link is good: long enough to notice a mail from us going elsewhere. */
export const EMAIL_UNDO_DAYS = 30;
const EMAIL_CHANGE_DOMAIN = 'email-change';
const EMAIL_UNDO_DOMAIN = 'email-undo';
/** The subscribe pages' window: one mail to an address in 10 minutes, whichever page sends it. */
const MAIL_WINDOW = 600;

export type EmailRequest = 'sent' | 'invalid' | 'same' | { readonly retryAfter: number };

/**
 * Asks the new address to confirm. The answer to the page is `sent` whether or not the address is free (a taken
 * address gets no mail and the page says the same), so the form cannot be used to find out who is subscribed.
 */
export async function requestEmailChange(
  ctx: AppContext,
  subscriber: SubscriberRow,
  rawEmail: string,
  origin: HistoryOrigin,
  lang: Lang,
): Promise<EmailRequest> {
  const email = rawEmail.trim();
  if (email.length > 255 || !isEmail(email)) return 'invalid';
  if (email.toLowerCase() === subscriber.email.toLowerCase()) return 'same';
  // The sign-up forms' window for the address: at most one mail to it in 10 minutes from any public page.
  const digest = createHash('sha256').update(email.toLowerCase()).digest('base64url');
  const slot = await takeStrict(ctx.db, `page-address:${digest}`, MAIL_WINDOW, 1);
  if (!slot.granted) return { retryAfter: slot.retryAfter };
  const t = translator(preferences, lang);
  const queued = await ctx.db.transaction(async (tx) => {
    const detail = 'Asked in the preference centre to change the e-mail address; confirmation sent to the new address';
    await insertHistory(tx, subscriber.id, origin, 'Updated', detail);
    if ((await repo.addressOwner(tx, email)) !== undefined) return false;
    const token = seal(ctx.secrets.linkToken, EMAIL_CHANGE_DOMAIN, [subscriber.uniqueId, email], EMAIL_CHANGE_DAYS * 86_400);
    const link = `${ctx.config.publicUrl}/preferences/email/${token}`;
    await queueMail(ctx, tx, 'address-change', {
      to: email,
      subject: t('changeMailSubject'),
      text: t('changeMailBody', { link, days: EMAIL_CHANGE_DAYS }),
    });
    return true;
  });
  if (queued) mailQueued(ctx);
  return 'sent';
}

/** What an address-change (or undo) link asks for, without changing anything (the page asking to confirm). */
export function peekEmailChange(ctx: AppContext, token: string, undo = false): { readonly email: string } | 'expired' | null {
  const opened = unseal(ctx.secrets.linkToken, undo ? EMAIL_UNDO_DOMAIN : EMAIL_CHANGE_DOMAIN, token);
  if (opened === null || opened === 'expired') return opened;
  return { email: opened.fields[1] ?? '' };
}

export type EmailChange = { readonly outcome: 'changed'; readonly subscriber: SubscriberRow } | { readonly outcome: 'taken' | 'expired' | 'invalid' };

/** Moves the subscriber to `email` if it is still free, with the history entry and mail `then` adds. Idempotent. */
async function moveTo(
  ctx: AppContext,
  domain: string,
  token: string,
  then: (tx: Executor, subscriber: SubscriberRow) => Promise<void>,
): Promise<EmailChange> {
  const opened = unseal(ctx.secrets.linkToken, domain, token);
  if (opened === null) return { outcome: 'invalid' };
  if (opened === 'expired') return { outcome: 'expired' };
  const [uniqueId = '', email = ''] = opened.fields;
  const subscriber = await findSubscriberByUniqueId(ctx.db, uniqueId);
  if (!subscriber || email === '') return { outcome: 'invalid' };
  if (subscriber.email === email) return { outcome: 'changed', subscriber };
  try {
    const changed = await ctx.db.transaction(async (tx) => {
      if (!(await repo.changeEmailIfFree(tx, subscriber.id, email))) return false;
      await then(tx, subscriber);
      return true;
    });
    if (!changed) return { outcome: 'taken' };
  } catch (err) {
    // Two changes racing for one free address: the unique index lets one win.
    if (driverCode(err) === '23505') return { outcome: 'taken' };
    throw err;
  }
  mailQueued(ctx);
  return { outcome: 'changed', subscriber: { ...subscriber, email } };
}

/**
 * The link of an address-change mail: moves the subscriber to the new address if it is still free, and mails the
 * old address a link that changes it back (EMAIL_UNDO_DAYS).
 */
export async function confirmEmailChange(ctx: AppContext, token: string, origin: HistoryOrigin, lang: Lang): Promise<EmailChange> {
  return moveTo(ctx, EMAIL_CHANGE_DOMAIN, token, async (tx, subscriber) => {
    await insertHistory(tx, subscriber.id, origin, 'Updated', 'Changed the e-mail address in the preference centre (confirmed by the new address)');
    const t = translator(preferences, lang);
    const undo = seal(ctx.secrets.linkToken, EMAIL_UNDO_DOMAIN, [subscriber.uniqueId, subscriber.email], EMAIL_UNDO_DAYS * 86_400);
    const link = `${ctx.config.publicUrl}/preferences/email-undo/${undo}`;
    await queueMail(ctx, tx, 'address-undo', {
      to: subscriber.email,
      subject: t('undoMailSubject'),
      text: t('undoMailBody', { link, days: EMAIL_UNDO_DAYS }),
    });
  });
}

/** The link mailed to the old address: moves the subscriber back to it if it is still free. Idempotent. */
export async function undoEmailChange(ctx: AppContext, token: string, origin: HistoryOrigin): Promise<EmailChange> {
  return moveTo(ctx, EMAIL_UNDO_DOMAIN, token, async (tx, subscriber) => {
    await insertHistory(tx, subscriber.id, origin, 'Updated', 'Changed the e-mail address back by the link mailed to the old address');
  });
}
