import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Email, Id, IdParam, NonBlank } from '../shared/schemas.js';
import { NEW_PASSWORD_MIN } from './administrator.schemas.js';

export const LoginBody = Type.Object(
  {
    login_name: NonBlank({ description: 'Administrator login name' }),
    password: NonBlank({ description: 'Administrator password' }),
  },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBody>;

/** Reference §6.2. The key is shown here once; only its hash is stored. */
export const SessionToken = Type.Object({
  id: Id,
  key: Type.String({ description: '32 hex characters; send it as `php-auth-pw`, Basic password or Bearer token' }),
  expiry_date: DateTime,
});

export const SessionParams = Type.Object({ sessionId: IdParam });

/**
 * Ours: an administrator changes their own e-mail and password without the `settings` privilege. The current
 * password is always required, since a changed e-mail address is enough to take the account over by password
 * reset. No other keys: privileges, login name and super user status cannot be changed this way.
 */
export const UpdateOwnAccountBody = Type.Object(
  {
    current_password: NonBlank({ maxLength: 255, description: 'The password the administrator has now' }),
    email: Type.Optional(Email),
    password: Type.Optional(
      NonBlank({ minLength: NEW_PASSWORD_MIN, maxLength: 255, description: `The new password, ${NEW_PASSWORD_MIN} characters or more` }),
    ),
  },
  { additionalProperties: false },
);
export type UpdateOwnAccountBody = Static<typeof UpdateOwnAccountBody>;
