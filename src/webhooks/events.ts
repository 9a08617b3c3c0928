/** Every event type an endpoint may ask for (docs/api.md, "Webhooks"). */
export const WEBHOOK_EVENT_TYPES = [
  'subscriber.created',
  'subscriber.confirmed',
  'subscriber.unsubscribed',
  'subscriber.blacklisted',
  'subscriber.updated',
  'bounce.recorded',
  'complaint.recorded',
  'campaign.status_changed',
  'campaign.finished',
  'open.recorded',
  'click.recorded',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The type of the ping sent by `POST /webhooks/{id}/test`; never stored, never asked for. */
export const TEST_EVENT_TYPE = 'webhook.test';
