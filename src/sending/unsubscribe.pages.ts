import { escapeHtml } from '../shared/html.js';
import type { ListName } from './unsubscribe.repository.js';

/*
 * The small HTML pages of the unsubscribe link. Self-contained (no scripts, no external assets); list names are
 * the administrators' words and are escaped.
 */


function page(title: string, body: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">' +
    `<title>${escapeHtml(title)}</title></head><body>${body}</body></html>`
  );
}

const listNames = (lists: readonly ListName[]) => lists.map((l) => escapeHtml(l.name)).join(', ');

/** GET: asks before doing anything, so that a mail scanner following the link unsubscribes nobody. */
export function confirmPage(maskedEmail: string, lists: readonly ListName[]): string {
  if (lists.length === 0) {
    return page(
      'Unsubscribe',
      `<h1>Nothing to unsubscribe</h1><p>${escapeHtml(maskedEmail)} is not on any list this campaign was sent to.</p>`,
    );
  }
  // No `action`: the form posts to this very URL (the token is in the path).
  return page(
    'Unsubscribe',
    `<h1>Unsubscribe ${escapeHtml(maskedEmail)} from ${listNames(lists)}?</h1>` +
      '<form method="post"><input type="hidden" name="confirm" value="yes">' +
      '<button type="submit">Unsubscribe</button></form>',
  );
}

export function donePage(maskedEmail: string, removed: readonly ListName[]): string {
  const what =
    removed.length > 0
      ? `${escapeHtml(maskedEmail)} has been unsubscribed from ${listNames(removed)}.`
      : `${escapeHtml(maskedEmail)} is not on any list this campaign was sent to.`;
  return page('Unsubscribed', `<h1>You are unsubscribed</h1><p>${what}</p>`);
}

/** The unsubscribe link of a forwarded copy: its reader was never subscribed. */
export const FORWARDED_PAGE = page(
  'Unsubscribe',
  '<h1>Nothing to unsubscribe</h1><p>This message was forwarded to you by a subscriber. ' +
    'Your address is not on our lists, and nothing more will be sent to it.</p>',
);

export const INVALID_PAGE = page(
  'Unsubscribe',
  '<h1>Unknown unsubscribe link</h1><p>This link is not valid (any more). Copy the whole link from the mail.</p>',
);
