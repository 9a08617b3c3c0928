import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Id, IdParam, Nullable } from '../shared/schemas.js';

/** ../shared/api/DECISIONS.md § Resources: the answer to an upload, and one item of a campaign's attachment list. */
export const Attachment = Type.Object({
  id: Id,
  filename: Type.String(),
  mime_type: Type.String(),
  size: Type.Integer({ description: 'Bytes' }),
  description: Nullable(Type.String()),
  created_at: DateTime,
});
export type Attachment = Static<typeof Attachment>;

export const CampaignParams = Type.Object({ messageId: IdParam });
export const CampaignAttachmentParams = Type.Object({ messageId: IdParam, attachmentId: IdParam });
export const DownloadParams = Type.Object({ id: IdParam });
export const DownloadQuery = Type.Object({
  uid: Type.Optional(Type.String({ description: "The recipient's subscriber unique id" })),
});
