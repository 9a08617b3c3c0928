import { Type, type Static } from '@sinclair/typebox';
import { Id, IdParam, Nullable, StringEnum } from '../shared/schemas.js';
import { MAX_PATTERN_LENGTH } from './bounce-rule.pattern.js';

/** What a matching rule does to the bounce and its subscriber (reference §5.16). */
export const BOUNCE_ACTIONS = [
  'blacklistuser',
  'blacklistemailanddeletebounce',
  'blacklistemail',
  'blacklistuseranddeletebounce',
  'decreasecountconfirmuseranddeletebounce',
  'deletebounce',
  'deleteuserandbounce',
  'deleteuser',
  'unconfirmuseranddeletebounce',
  'unconfirmuser',
] as const;
export const BOUNCE_RULE_STATUSES = ['active', 'invite'] as const;

/** Reference §6.18. `count`: bounces the rule has matched so far. */
export const BounceRegex = Type.Object({
  id: Id,
  regex: Type.String(),
  regex_hash: Type.String({ description: 'md5 of regex' }),
  action: Nullable(Type.String()),
  list_order: Nullable(Type.Integer()),
  admin_id: Nullable(Type.Integer()),
  comment: Nullable(Type.String()),
  status: Nullable(Type.String()),
  count: Nullable(Type.Integer()),
});
export type BounceRegex = Static<typeof BounceRegex>;

/** Create and PUT share one body; PUT replaces every field (absent → default). */
export const BounceRegexBody = Type.Object(
  {
    regex: Type.String({
      minLength: 1,
      maxLength: MAX_PATTERN_LENGTH,
      description:
        'A PCRE pattern with delimiters, e.g. `/mailbox is full/i`; flags i, m, s, x, u; run in RE2 (linear time: no backreferences or lookaround)',
    }),
    action: StringEnum(BOUNCE_ACTIONS),
    status: StringEnum(BOUNCE_RULE_STATUSES),
    list_order: Type.Optional(Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647, default: 0 })),
    comment: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  },
  { additionalProperties: false },
);
export type BounceRegexBody = Static<typeof BounceRegexBody>;

export const BounceRuleParams = Type.Object({ ruleId: IdParam });

/** Bounce text the "try this rule" endpoint accepts, in characters. */
export const MAX_TEST_TEXT = 65_536;

/** `POST /bounces/regex/test` (ours): a pattern and a pasted bounce, matched as bounce processing would. */
export const BounceRuleTestBody = Type.Object(
  {
    regex: Type.String({ minLength: 1, maxLength: MAX_PATTERN_LENGTH, description: "A pattern as a rule's `regex`" }),
    text: Type.String({ maxLength: MAX_TEST_TEXT, description: 'The bounce text to search (header and body as pasted)' }),
  },
  { additionalProperties: false },
);
export type BounceRuleTestBody = Static<typeof BounceRuleTestBody>;

export const BounceRuleTestResult = Type.Object({
  matches: Type.Boolean(),
  match: Nullable(
    Type.Object({
      start: Type.Integer({ description: 'Offset of the match in `text` (UTF-16 code units)' }),
      end: Type.Integer(),
      text: Type.String({ description: 'The matched text (at most 500 characters, then …)' }),
    }),
  ),
  excerpt: Nullable(Type.String({ description: 'The match with up to 80 characters either side' })),
  searched: Type.Integer({ description: 'Characters searched: bounce processing reads only the first 20,000' }),
});
export type BounceRuleTestResult = Static<typeof BounceRuleTestResult>;
