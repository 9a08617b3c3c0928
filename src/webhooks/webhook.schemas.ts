import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Id, IdParam, Nullable, StringEnum } from '../shared/schemas.js';
import { WEBHOOK_EVENT_TYPES } from './events.js';

export const WebhookParams = Type.Object({ webhookId: IdParam });

const EventList = Type.Array(StringEnum(WEBHOOK_EVENT_TYPES), {
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  description: 'The event types wanted (docs/api.md, "Webhooks")',
});
const Url = Type.String({ minLength: 1, maxLength: 2000, description: 'An http or https URL the events are POSTed to' });

/** An endpoint as the API shows it: never the secret (only creation and rotation answer it). */
export const Webhook = Type.Object({
  id: Id,
  url: Type.String(),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  disabled_reason: Nullable(Type.String({ description: 'Why the service disabled it; null when enabled or disabled by hand' })),
  failing_since: Nullable(DateTime),
  created_at: DateTime,
  updated_at: DateTime,
});
export type Webhook = Static<typeof Webhook>;

export const WebhookWithSecret = Type.Composite([
  Webhook,
  Type.Object({ secret: Type.String({ description: 'The signing secret, `whsec_<base64>`; shown only here' }) }),
]);
export type WebhookWithSecret = Static<typeof WebhookWithSecret>;

export const WebhookCreateBody = Type.Object(
  {
    url: Url,
    events: EventList,
    secret: Type.Optional(Type.String({ description: '`whsec_` and 24 to 64 bytes in base64; generated when absent' })),
    enabled: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);
export type WebhookCreateBody = Static<typeof WebhookCreateBody>;

export const WebhookUpdateBody = Type.Object(
  { url: Type.Optional(Url), events: Type.Optional(EventList), enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type WebhookUpdateBody = Static<typeof WebhookUpdateBody>;

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

export const WebhookDelivery = Type.Object({
  id: Type.Integer(),
  event_id: Type.String({ description: 'The `webhook-id` header' }),
  type: Type.String(),
  status: StringEnum(DELIVERY_STATUSES),
  attempts: Type.Integer(),
  next_attempt_at: Nullable(DateTime),
  last_attempt_at: Nullable(DateTime),
  last_status: Nullable(Type.Integer({ description: 'HTTP status of the last attempt; null when no answer came' })),
  last_response: Nullable(Type.String({ description: 'First 1,000 characters of the last answer' })),
  last_error: Nullable(Type.String()),
  delivered_at: Nullable(DateTime),
  created_at: DateTime,
});
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const DeliveriesQuery = Type.Object({
  before: Type.Optional(Type.Integer({ minimum: 1, description: 'Deliveries with an id below this (the previous page’s next_cursor)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  status: Type.Optional(StringEnum(DELIVERY_STATUSES)),
});
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;

export const DeliveryPage = Type.Object({
  items: Type.Array(WebhookDelivery),
  pagination: Type.Object({ limit: Type.Integer(), has_more: Type.Boolean(), next_cursor: Nullable(Type.Integer()) }),
});
export type DeliveryPage = Static<typeof DeliveryPage>;

export const WebhookTestResult = Type.Object({
  webhook_id: Type.String(),
  delivered: Type.Boolean(),
  status: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
});
export type WebhookTestResult = Static<typeof WebhookTestResult>;
