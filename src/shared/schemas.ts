import { Type, type Static, type TSchema } from '@sinclair/typebox';

/*
 * Shared schema atoms. A schema here validates input, shapes output and documents the API at once.
 * `errorMessage` overrides the plain-words message the validator reports for that field.
 */

export const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Numeric identifier' });

/** A path id: digits only. Anything else is answered like an unknown route (phpList's `\d+` requirement). */
export const IdParam = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });

export const DateTime = Type.String({ format: 'date-time', description: 'ISO 8601 with numeric offset, no fraction' });

export const Email = Type.String({
  format: 'email',
  maxLength: 255,
  errorMessage: 'This value is not a valid email address.',
});

/** A string that must contain something other than white space. */
export function NonBlank(options: { minLength?: number; maxLength?: number; description?: string } = {}) {
  return Type.String({
    minLength: options.minLength ?? 1,
    maxLength: options.maxLength ?? 255,
    pattern: '\\S',
    ...(options.description ? { description: options.description } : {}),
  });
}

export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** A string restricted to a set of values, emitted as a JSON-Schema `enum` (one error, clear message). */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}) {
  return Type.Unsafe<T[number]>({
    type: 'string',
    enum: [...values],
    errorMessage: `The value you selected is not a valid choice. Allowed values: ${values.join(', ')}.`,
    ...options,
  });
}

export const Message = Type.Object({ message: Type.String() }, { $id: 'Message' });
export type Message = Static<typeof Message>;

export const ValidationFailure = Type.Object(
  {
    message: Type.Literal('Validation failed'),
    errors: Type.Record(Type.String(), Type.Array(Type.String())),
  },
  { $id: 'ValidationFailure' },
);

/** Response schemas for error statuses, to spread into a route's `response`. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of statuses) {
    out[status] = status === 422 ? Type.Ref(ValidationFailure) : Type.Ref(Message);
  }
  return out;
}
