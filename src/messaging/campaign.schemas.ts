import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Id, IdParam, NonBlank, Nullable, StringEnum } from '../shared/schemas.js';
import { Template } from './template.schemas.js';

export const CAMPAIGN_STATUSES = ['draft', 'prepared', 'submitted', 'inprocess', 'sent', 'suspended', 'requeued'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
/** What `PATCH …/status` accepts (reference §7.1: not `inprocess`). */
export const REQUESTABLE_STATUSES = ['draft', 'sent', 'prepared', 'submitted', 'suspended', 'requeued'] as const;
export const SEND_FORMATS = ['html', 'text', 'invite'] as const;
/** The console editor's formats (Mailroom extension `content.editor`, docs/api.md). */
export const EDITOR_FORMATS = ['visual', 'richtext', 'markdown', 'html', 'text'] as const;
/** Formats whose document is a source of their own beside the body (the others edit the body itself). */
export const EDITOR_FORMATS_WITH_SOURCE = ['visual', 'markdown'] as const;

const EDITOR_DESCRIPTION =
  'Mailroom extension: the format the console editor wrote the body in and its own document (`visual`: block JSON; ' +
  '`markdown`: the Markdown). `text` (the body itself) is what is sent; phpList clients ignore this.';

export const CampaignEditor = Type.Object(
  {
    format: StringEnum(EDITOR_FORMATS),
    source: Nullable(Type.String({ description: 'The block JSON (`visual`) or the Markdown (`markdown`); null for the other formats' })),
    outdated: Type.Boolean({
      description: 'The body was replaced since by a client that did not send `editor`: the console opens it as HTML and keeps this as a note',
    }),
  },
  { description: EDITOR_DESCRIPTION },
);

/** Reference §6.14 (Message), plus `created_at`/`updated_at` (specification: campaign list entries carry them). */
export const Campaign = Type.Object({
  id: Id,
  unique_id: Nullable(Type.String()),
  template: Nullable(Template),
  message_content: Type.Object({
    subject: Type.String(),
    name: Nullable(
      Type.String({ description: 'Ours: the name the console shows in tables and titles; null for campaigns made before names existed' }),
    ),
    text: Nullable(Type.String()),
    text_message: Nullable(Type.String()),
    footer: Nullable(Type.String()),
    editor: Nullable(CampaignEditor),
  }),
  message_format: Type.Object({
    html_formated: Type.Boolean(),
    send_format: Nullable(Type.String()),
    as_text: Type.Integer(),
    as_html: Type.Integer(),
    as_text_and_html: Type.Integer(),
    as_pdf: Type.Integer(),
    as_text_and_pdf: Type.Integer(),
  }),
  message_metadata: Type.Object({
    status: Type.String(),
    processed: Type.Integer(),
    views: Type.Integer(),
    bounce_count: Type.Integer(),
    entered: Nullable(DateTime),
    sent: Nullable(DateTime),
    send_start: Nullable(DateTime),
  }),
  message_schedule: Type.Object({
    repeat_interval: Nullable(Type.Integer()),
    repeat_until: Nullable(DateTime),
    requeue_interval: Nullable(Type.Integer()),
    requeue_until: Nullable(DateTime),
    embargo: Nullable(DateTime),
  }),
  message_options: Type.Object({
    from_field: Type.String(),
    to_field: Type.String(),
    reply_to: Type.String(),
    user_selection: Nullable(Type.String()),
  }),
  created_at: DateTime,
  updated_at: DateTime,
});
export type Campaign = Static<typeof Campaign>;

const DateInput = Type.String({
  maxLength: 64,
  description: 'Any ISO 8601 date-time (`2026-11-22T09:30:00+00:00`, `2026-11-22 09:30:00`, with or without a fraction)',
});
const Minutes = Type.Integer({ minimum: 0, maximum: 5_256_000, description: 'Minutes' });

/**
 * phpList's CampaignBody groups (reference §5.12; ../shared/api/DECISIONS.md § Resources). `metadata` is accepted and
 * ignored.
 */
export const CampaignBody = Type.Object(
  {
    template_id: Type.Optional(Nullable(Id)),
    content: Type.Object(
      {
        subject: NonBlank({ maxLength: 255 }),
        name: Type.Optional(
          NonBlank({
            maxLength: 255,
            description:
              "Ours: the campaign's name in the console, apart from the subject. On create it defaults to the subject; on update, left out keeps the current one",
          }),
        ),
        text: NonBlank({ maxLength: 10_000_000 }),
        footer: Type.Optional(Nullable(Type.String({ maxLength: 100_000 }))),
        text_message: Type.Optional(Nullable(Type.String({ maxLength: 10_000_000, description: 'Plain-text alternative' }))),
        editor: Type.Optional(
          Nullable(
            Type.Object(
              {
                format: StringEnum(EDITOR_FORMATS),
                source: Type.Optional(Nullable(Type.String({ maxLength: 10_000_000 }))),
              },
              {
                additionalProperties: false,
                description: `${EDITOR_DESCRIPTION} Omitted: kept, marked outdated when \`text\` changes; null: dropped.`,
              },
            ),
          ),
        ),
      },
      { additionalProperties: false },
    ),
    format: Type.Object({ send_format: StringEnum(SEND_FORMATS) }, { additionalProperties: false }),
    metadata: Type.Optional(Type.Object({ status: Type.Optional(Type.String({ maxLength: 50 })) }, { description: 'Ignored: use PATCH …/status' })),
    schedule: Type.Optional(
      Type.Object(
        {
          embargo: Type.Optional(Nullable(DateInput)),
          repeat_interval: Type.Optional(Nullable(Minutes)),
          repeat_until: Type.Optional(Nullable(DateInput)),
          requeue_interval: Type.Optional(Nullable(Minutes)),
          requeue_until: Type.Optional(Nullable(DateInput)),
        },
        { additionalProperties: false },
      ),
    ),
    options: Type.Object(
      {
        from_field: NonBlank({ maxLength: 255, description: '`addr@example.com` or `Name <addr@example.com>`' }),
        to_field: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
        reply_to: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
        user_selection: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type CampaignBody = Static<typeof CampaignBody>;

export const CampaignParams = Type.Object({ messageId: IdParam });
export const CampaignListQuery = Type.Object({
  after_id: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  subject: Type.Optional(Type.String({ maxLength: 255, description: 'Substring of the subject or (ours) the name, case-insensitive' })),
  status: Type.Optional(StringEnum(CAMPAIGN_STATUSES, { description: 'Only campaigns in this status (ours, additive)' })),
});
export type CampaignListQuery = Static<typeof CampaignListQuery>;

export const StatusBody = Type.Object({ status: StringEnum(REQUESTABLE_STATUSES) }, { additionalProperties: false });
export type StatusBody = Static<typeof StatusBody>;

const Count = Type.Integer({ minimum: 0 });
/**
 * A campaign in GET /campaigns, with one additive group (ours): its lists and the counters the console's table shows.
 * phpList clients read the Message they know and ignore `figures`.
 */
export const CampaignListItem = Type.Object({
  ...Campaign.properties,
  figures: Type.Object(
    {
      lists: Type.Array(Type.Object({ id: Id, name: Type.String() }), { description: 'The lists it goes to, by name' }),
      total: Type.Integer({ minimum: 0, description: 'Recipients in its frozen audience (queued + sent + failed + skipped)' }),
      sent: Count,
      failed: Count,
      unique_opens: Type.Integer({ minimum: 0, description: 'Recipients who opened, at least once' }),
      unique_clicks: Type.Integer({ minimum: 0, description: 'Recipients who clicked, at least once' }),
    },
    { description: 'Ours: from the counters the service keeps (never recounted)' },
  ),
});
export type CampaignListItem = Static<typeof CampaignListItem>;
