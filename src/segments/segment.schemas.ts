import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { DateTime, Id, NonBlank, Nullable, StringEnum } from '../shared/schemas.js';

/*
 * Segment shapes. A definition is a tree, which the request validator cannot check with useful messages (a bad
 * condition deep in an anyOf only says "must match a schema in anyOf"): routes accept any object for it and
 * segment.definition.ts checks it, answering 422 with the path of each bad condition. The exact JSON Schema of a
 * definition is published in the OpenAPI document's components (SegmentGroup and the Segment…Condition schemas).
 */

const Days = Type.Integer({ minimum: 1, maximum: 36_500, description: 'A number of days' });
const Day = Type.String({ format: 'date', description: 'YYYY-MM-DD' });
const optional = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));

const conditionSchemas = {
  SegmentAttributeCondition: Type.Object(
    {
      type: Type.Literal('attribute'),
      attribute_id: Id,
      op: StringEnum(
        [
          'equals',
          'not_equals',
          'contains',
          'not_contains',
          'starts_with',
          'is_empty',
          'is_not_empty',
          'before',
          'after',
          'on',
          'within_last_days',
          'is_set',
          'is_not_set',
          'any_of',
          'none_of',
          'all_of',
        ],
        {
          description:
            'Text types (textline, textarea, hidden, creditcardno): equals, not_equals, contains, not_contains, starts_with, is_empty, ' +
            'is_not_empty (case-insensitive). date: before, after, on (value YYYY-MM-DD), within_last_days (value days), is_empty, ' +
            'is_not_empty. checkbox: is_set, is_not_set. select, radio: any_of, none_of, is_empty, is_not_empty; checkboxgroup also all_of ' +
            '(value: option ids or names).',
        },
      ),
      value: Type.Optional(Type.Union([Type.String(), Type.Integer(), Type.Array(Type.Union([Type.String(), Type.Integer()]))])),
    },
    { description: "A subscriber attribute's value" },
  ),
  SegmentEmailCondition: Type.Object(
    {
      type: Type.Literal('email'),
      op: StringEnum(['equals', 'contains', 'not_contains', 'domain_is', 'domain_is_not']),
      value: Type.String({ minLength: 1, maxLength: 1000 }),
    },
    { description: 'The e-mail address (case-insensitive); a domain is given without the @' },
  ),
  SegmentFlagCondition: Type.Object(
    { type: StringEnum(['confirmed', 'blacklisted', 'html_email']), value: Type.Boolean() },
    { description: 'A flag of the subscriber' },
  ),
  SegmentBounceCountCondition: Type.Object({
    type: Type.Literal('bounce_count'),
    op: StringEnum(['eq', 'ne', 'gt', 'gte', 'lt', 'lte']),
    value: Type.Integer({ minimum: 0 }),
  }),
  SegmentSubscribedCondition: Type.Object(
    {
      type: Type.Literal('subscribed'),
      list_id: optional(Id),
      op: StringEnum(['before', 'after', 'within_last_days']),
      value: Type.Union([Day, Days]),
    },
    { description: 'When the person subscribed: to the list given, or at all (the subscriber was created)' },
  ),
  SegmentListCondition: Type.Object(
    { type: Type.Literal('list'), op: StringEnum(['member_of', 'not_member_of']), list_ids: Type.Array(Id, { minItems: 1 }) },
    { description: 'Member of any of the lists, or of none of them' },
  ),
  SegmentEngagementCondition: Type.Object(
    {
      type: Type.Literal('engagement'),
      action: StringEnum(['sent', 'opened', 'clicked']),
      campaign_id: optional(Id),
      within_last_days: optional(Days),
      negate: Type.Optional(Type.Boolean({ description: 'Match those who did not (never opened: action opened, negate true)' })),
    },
    { description: 'Was sent, opened (opens judged a person’s) or clicked a campaign (or any), optionally within the last N days' },
  ),
  SegmentClickedLinkCondition: Type.Object({
    type: Type.Literal('clicked_link'),
    url: Type.String({ minLength: 1, maxLength: 1000 }),
    campaign_id: optional(Id),
    within_last_days: optional(Days),
    negate: Type.Optional(Type.Boolean()),
  }),
  SegmentBouncedCondition: Type.Object({
    type: Type.Literal('bounced'),
    within_last_days: optional(Days),
    negate: Type.Optional(Type.Boolean()),
  }),
};

/** Components of the OpenAPI document: the definition's JSON Schema, recursive through SegmentGroup. */
export const SEGMENT_COMPONENTS: Record<string, Record<string, unknown>> = {
  SegmentGroup: {
    type: 'object',
    description: 'AND (match all) or OR (match any) of conditions and nested groups (at most 5 deep, 100 conditions in all)',
    required: ['match', 'conditions'],
    properties: {
      type: { const: 'group', description: 'Required on nested groups; optional at the top' },
      match: { type: 'string', enum: ['all', 'any'] },
      conditions: {
        type: 'array',
        items: {
          anyOf: [
            { $ref: '#/components/schemas/SegmentGroup' },
            ...Object.keys(conditionSchemas).map((k) => ({ $ref: `#/components/schemas/${k}` })),
          ],
        },
      },
    },
  },
  ...conditionSchemas,
};

/** Any object here; checked by segment.definition.ts (see the note above). */
export const Definition = Type.Unsafe<unknown>({
  type: 'object',
  additionalProperties: true,
  description: 'A segment definition: a SegmentGroup (#/components/schemas/SegmentGroup); see docs/api.md "Segments"',
});

export const SegmentBody = Type.Object({
  name: NonBlank({ maxLength: 255 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
  definition: Definition,
});
export type SegmentBody = Static<typeof SegmentBody>;

export const Segment = Type.Object({
  id: Id,
  name: Type.String(),
  description: Nullable(Type.String()),
  definition: Definition,
  created_at: DateTime,
  updated_at: DateTime,
});
export type Segment = Static<typeof Segment>;

export const SegmentParams = Type.Object({ segmentId: Type.Integer({ minimum: 0, maximum: 2_147_483_647 }) });

export const DefinitionBody = Type.Object({ definition: Definition });
export type DefinitionBody = Static<typeof DefinitionBody>;

export const SegmentCount = Type.Object({
  count: Type.Integer({ minimum: 0, description: 'Subscribers matching now' }),
  sendable: Type.Integer({
    minimum: 0,
    description:
      'Of those, how many a campaign to the segment would mail now: confirmed, not blacklisted, not disabled, address ' +
      'not in the blacklist (the rule the send freezes its audience by)',
  }),
});
export type SegmentCount = Static<typeof SegmentCount>;

export const MatchPageQuery = Type.Object({
  after_id: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0, description: 'Return subscribers with id greater than this' }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
});
export type MatchPageQuery = Static<typeof MatchPageQuery>;

export const PreviewBody = Type.Object({
  definition: Definition,
  // Ids are 32-bit: a larger cursor would reach the database as an out-of-range integer (a 500), so it is a 422 here.
  after_id: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});
export type PreviewBody = Static<typeof PreviewBody>;

export const MatchingSubscriber = Type.Object({
  id: Id,
  email: Type.String(),
  confirmed: Type.Boolean(),
  blacklisted: Type.Boolean(),
  created_at: DateTime,
});

/** A page of matching subscribers. No total (counting is the separate, heavier call): `next_cursor` pages on. */
export const MatchPage = Type.Object({
  items: Type.Array(MatchingSubscriber),
  pagination: Type.Object({ limit: Type.Integer(), has_more: Type.Boolean(), next_cursor: Nullable(Type.Integer()) }),
});
export type MatchPage = Static<typeof MatchPage>;
