import { Type, type Static } from '@sinclair/typebox';

/** Any text: a garbled token gets the "unknown link" page, not a validation error. */
export const UnsubscribeParams = Type.Object({
  token: Type.String({ description: 'The signed token of the List-Unsubscribe link (campaign and subscriber)' }),
});

/**
 * The form body (application/x-www-form-urlencoded). Mail clients send `List-Unsubscribe=One-Click` (RFC 8058),
 * the confirmation page sends `confirm=yes`; any other body, or none, unsubscribes just the same.
 */
export const UnsubscribeForm = Type.Object({
  'List-Unsubscribe': Type.Optional(Type.String({ description: '`One-Click` (RFC 8058)' })),
  confirm: Type.Optional(Type.String({ description: "Sent by the confirmation page's form" })),
  reason: Type.Optional(Type.String({ description: "The page's optional reason for leaving (kept in the subscriber's history)" })),
});

export const ResubscribeParams = Type.Object({
  token: Type.String({ maxLength: 1000, description: 'The signed resubscribe token of the page after unsubscribing' }),
});
export type UnsubscribeForm = Static<typeof UnsubscribeForm>;

export const Html = Type.String({ description: 'A small HTML page' });
export const PlainText = Type.String({ description: 'A short plain-text answer' });
