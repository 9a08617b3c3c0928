import { Type, type Static } from '@sinclair/typebox';
import { Email, NonBlank } from '../shared/schemas.js';
import { NEW_PASSWORD_MIN } from './administrator.schemas.js';

/** Reference §5.4. */
export const ResetRequestBody = Type.Object(
  { email: { ...Email, description: 'E-mail address of the administrator' } },
  { additionalProperties: false },
);
export type ResetRequestBody = Static<typeof ResetRequestBody>;

export const ValidateTokenBody = Type.Object(
  { token: NonBlank({ description: 'The token from the password reset mail' }) },
  { additionalProperties: false },
);
export type ValidateTokenBody = Static<typeof ValidateTokenBody>;

export const ResetPasswordBody = Type.Object(
  {
    token: NonBlank({ description: 'The token from the password reset mail' }),
    new_password: NonBlank({ minLength: NEW_PASSWORD_MIN, maxLength: 255, description: `The new password, ${NEW_PASSWORD_MIN} characters or more` }),
  },
  { additionalProperties: false },
);
export type ResetPasswordBody = Static<typeof ResetPasswordBody>;

export const TokenValidity = Type.Object({
  valid: Type.Boolean({ description: 'Whether the token can still be used to reset the password' }),
});

export const PasswordUpdated = Type.Object({ message: Type.Literal('Password updated successfully') });
