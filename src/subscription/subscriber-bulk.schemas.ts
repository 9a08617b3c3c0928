import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Id, IdParam, Nullable, StringEnum } from '../shared/schemas.js';
import { SubscriberFilterQuery } from './subscriber.schemas.js';

/** What a bulk request can do to the subscribers it selects. */
export const BULK_ACTIONS = ['add_to_list', 'remove_from_list', 'blacklist', 'delete'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

/** The most ids one request may name; more are selected by a filter. */
export const MAX_BULK_IDS = 10_000;

const BulkIds = Type.Array(Id, {
  minItems: 1,
  maxItems: MAX_BULK_IDS,
  description: `The subscribers by id (at most ${MAX_BULK_IDS}); ids of subscribers that no longer exist are passed over`,
});

const BulkFilter = Type.Object(SubscriberFilterQuery.properties, {
  additionalProperties: false,
  description: 'Every subscriber matching this filter: the query of `GET /subscribers` (without paging) as an object',
});

/** Which subscribers: `ids` or `filter`, exactly one of them (checked by the service, which names the field). */
const Selection = {
  ids: Type.Optional(BulkIds),
  filter: Type.Optional(BulkFilter),
};

export const BulkBody = Type.Object(
  {
    action: StringEnum(BULK_ACTIONS, { description: 'What to do to each selected subscriber' }),
    ...Selection,
    list_id: Type.Optional(Id),
    reason: Type.Optional(Type.String({ maxLength: 255, description: 'Why (blacklist): kept with each blacklist entry' })),
  },
  { additionalProperties: false },
);
export type BulkBody = Static<typeof BulkBody>;

export const BulkExportBody = Type.Object(
  {
    ...Selection,
    columns: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
        maxItems: 100,
        description: 'Subscriber fields and attribute names, in order (as `POST /subscribers/export`)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type BulkExportBody = Static<typeof BulkExportBody>;

export const BULK_STATES = ['running', 'done', 'failed', 'interrupted'] as const;

export const BulkJob = Type.Object({
  id: Id,
  action: StringEnum(BULK_ACTIONS),
  state: StringEnum(BULK_STATES, {
    description: '`running`; then `done`, `failed` (see `error`) or `interrupted` (the server stopped between two batches)',
  }),
  list_id: Nullable(Id),
  total: Type.Integer({ description: 'Subscribers selected when the job started (or worked through, if more)' }),
  done: Type.Integer({ description: 'Subscribers worked through so far' }),
  affected: Type.Integer({ description: 'Subscribers the action changed (not those already members, already blacklisted …)' }),
  error: Nullable(Type.String()),
  created_at: DateTime,
  finished_at: Nullable(DateTime),
});
export type BulkJob = Static<typeof BulkJob>;

export const BulkJobParams = Type.Object({ jobId: IdParam });
