import { Type } from '@sinclair/typebox';

/**
 * Documented, never enforced: the pixel answers whatever the query holds (specification, Errors rule 7), so the
 * route turns validation off and reads these itself.
 */
export const OpenQuery = Type.Object({
  u: Type.Optional(Type.String({ description: "The subscriber's unique id" })),
  m: Type.Optional(Type.String({ description: 'The campaign (message) id' })),
});

export const PixelResponse = {
  description: 'The 1×1 transparent GIF (43 bytes), always, with caching forbidden',
  content: { 'image/gif': { schema: { type: 'string', format: 'binary' } } },
};
