import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Id, IdParam, NonBlank } from '../shared/schemas.js';

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
