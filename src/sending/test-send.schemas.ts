import { Type, type Static } from '@sinclair/typebox';
import { Email } from '../shared/schemas.js';

export const MAX_TEST_RECIPIENTS = 50;

/** Reference §5.13 test-send. */
export const TestSendBody = Type.Object(
  {
    emails: Type.Array(Email, {
      minItems: 1,
      maxItems: MAX_TEST_RECIPIENTS,
      description: `Addresses of existing subscribers to send the test to (1 to ${MAX_TEST_RECIPIENTS})`,
    }),
  },
  { additionalProperties: false },
);
export type TestSendBody = Static<typeof TestSendBody>;
