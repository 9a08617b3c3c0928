import { Type, type Static } from '@sinclair/typebox';
import { Page } from '../shared/pagination.js';
import { DateTime, Id, IdParam, StringEnum } from '../shared/schemas.js';

/** A campaign or template whose HTML references an image. */
export const MediaUse = Type.Object({
  kind: StringEnum(['campaign', 'template'] as const),
  id: Id,
  name: Type.String({ description: "The campaign's name (its subject when it has none) or the template's title" }),
});
export type MediaUse = Static<typeof MediaUse>;

/** Ours (issue 26): one image of the media library. */
export const Media = Type.Object({
  id: Id,
  url: Type.String({ description: 'Public address of the image, to write into HTML (`PUBLIC_URL/media/{key}/{filename}`); never changes' }),
  thumbnail_url: Type.String({ description: 'Public address of a WebP at most 320 pixels on its longer side' }),
  filename: Type.String({ description: 'The uploaded name made URL-safe, with the extension of the detected type' }),
  mime_type: StringEnum(['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const, { description: 'Detected from the bytes' }),
  size: Type.Integer({ description: 'Bytes' }),
  width: Type.Integer({ description: 'Pixels, as displayed' }),
  height: Type.Integer({ description: 'Pixels, as displayed (one frame of an animation)' }),
  alt: Type.String({ description: 'Text alternative given at upload (may be empty)' }),
  used_by: Type.Array(MediaUse, { description: 'Campaigns and templates whose HTML references the image; it can be deleted only when empty' }),
  created_at: DateTime,
});
export type Media = Static<typeof Media>;

export const MediaPage = Page(Media);

export const MediaListQuery = Type.Object({
  before_id: Type.Optional(
    Type.Integer({ minimum: 0, default: 0, description: 'Return images with id lower than this (newest first; 0: from the newest)' }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
});
export type MediaListQuery = Static<typeof MediaListQuery>;

export const MediaParams = Type.Object({ mediaId: IdParam });

/** The public address's parts: the key is what finds the image; the name must be the stored one. */
export const PublicMediaParams = Type.Object({
  key: Type.String({ maxLength: 64 }),
  filename: Type.String({ maxLength: 200 }),
});
export const PublicThumbnailParams = Type.Object({ key: Type.String({ maxLength: 64 }) });

/** 409 on a delete of an image in use: the message names them, `used_by` lists them. */
export const MediaInUse = Type.Object({ message: Type.String(), used_by: Type.Array(MediaUse) });
