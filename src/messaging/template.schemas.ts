import { Type, type Static } from '@sinclair/typebox';
import { Id, IdParam, NonBlank, Nullable } from '../shared/schemas.js';

/** Reference §6.16. `data` is the image bytes in base64, `""` when the image is remote (not fetched). */
export const TemplateImage = Type.Object({
  id: Id,
  template_id: Nullable(Type.Integer()),
  mimetype: Nullable(Type.String()),
  filename: Nullable(Type.String()),
  data: Type.String({ description: 'Base64 of the image bytes; empty when there are none' }),
  width: Nullable(Type.Integer()),
  height: Nullable(Type.Integer()),
});
export type TemplateImage = Static<typeof TemplateImage>;

/** Reference §6.16: `images` is null, not `[]`, when the template has none. */
export const Template = Type.Object({
  id: Id,
  title: Type.String(),
  content: Nullable(Type.String()),
  text: Nullable(Type.String()),
  list_order: Nullable(Type.Integer()),
  images: Nullable(Type.Array(TemplateImage)),
});
export type Template = Static<typeof Template>;

/** Characters in `content` or `text` (and in an uploaded file, which becomes the content). */
export const MAX_TEMPLATE_TEXT = 1_000_000;

/**
 * Create and update share one body (phpList's TemplateRequest). Sent as JSON or as multipart/form-data, whose
 * optional `file` part becomes the template's content (template.service.ts); form fields arrive as text and are
 * read as these types before validation (template.routes.ts).
 */
export const TemplateBody = Type.Object(
  {
    title: NonBlank({ description: 'Unique, case-insensitively' }),
    content: Type.Optional(Nullable(Type.String({ maxLength: MAX_TEMPLATE_TEXT, description: 'HTML; must contain the [CONTENT] placeholder' }))),
    text: Type.Optional(Nullable(Type.String({ maxLength: MAX_TEMPLATE_TEXT, description: 'Plain text; must contain [CONTENT] when given' }))),
    list_order: Type.Optional(Nullable(Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 }))),
    check_links: Type.Optional(Type.Boolean({ default: false, description: 'Every link must be a full URL' })),
    check_images: Type.Optional(Type.Boolean({ default: false, description: 'Every image must be a full http(s) URL' })),
    check_external_images: Type.Optional(Type.Boolean({ default: false, description: 'Every remote image must answer a HEAD request with 200' })),
  },
  { additionalProperties: false },
);
export type TemplateBody = Static<typeof TemplateBody>;

/** `POST /templates/check` (ours): the save's rules and checks on HTML and text that are not saved. */
export const TemplateCheckBody = Type.Pick(TemplateBody, ['content', 'text', 'check_links', 'check_images', 'check_external_images'], {
  additionalProperties: false,
});
export type TemplateCheckBody = Static<typeof TemplateCheckBody>;

export const TemplateCheckResult = Type.Object({ ok: Type.Literal(true, { description: 'Nothing failed; failures are a 422 naming each' }) });

export const TemplateParams = Type.Object({ templateId: IdParam });

/** Reference §6.16: a built-in template. */
export const DefaultTemplate = Type.Object({
  key: Type.String(),
  name: Type.String(),
  description: Type.String(),
  file: Type.String({ description: 'File name of the built-in HTML' }),
});
export type DefaultTemplate = Static<typeof DefaultTemplate>;

export const DefaultTemplateParams = Type.Object({ key: Type.String({ maxLength: 100 }) });
