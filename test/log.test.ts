import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { pathForLog, serializeError } from '../src/shared/log.js';

describe('what reaches the log', () => {
  test('a failed query is logged with its statement and driver code, never its parameters', () => {
    const cause = Object.assign(new Error('duplicate key value violates unique constraint "subscribers_email_key"'), {
      code: '23505',
      detail: 'Key (lower(email))=(jane@example.com) already exists.',
    });
    const err = new DrizzleQueryError('select id from subscribers where lower(email) = any($1)', ['jane@example.com', 'uid-123'], cause);
    const logged = serializeError(err);
    const text = JSON.stringify(logged);
    assert.doesNotMatch(text, /jane@example\.com|uid-123/);
    assert.match(logged.message, /^Failed query: select id from subscribers where lower\(email\) = any\(\$1\)\nparams: \[not logged\]$/);
    assert.match(logged.stack, /params: \[not logged\]\n\s+at /);
    assert.deepEqual(logged.cause, {
      type: 'Error',
      message: 'duplicate key value violates unique constraint "subscribers_email_key"',
      code: '23505',
    });
  });

  test('other errors keep their message and code', () => {
    const logged = serializeError(Object.assign(new TypeError('boom'), { code: 'E_X' }));
    assert.equal(logged.type, 'TypeError');
    assert.equal(logged.message, 'boom');
    assert.equal(logged.code, 'E_X');
  });

  test('paths lose query strings, addresses and link tokens', () => {
    assert.equal(pathForLog('/api/v2/subscribers?find_value=jane@example.com'), '/api/v2/subscribers');
    assert.equal(pathForLog('/api/v2/blacklist/check/jane%40example.com'), '/api/v2/blacklist/check/…');
    assert.equal(pathForLog('/api/v2/blacklist/remove/jane@example.com'), '/api/v2/blacklist/remove/…');
    assert.equal(pathForLog('/api/v2/unsubscribe/AbCdEf123'), '/api/v2/unsubscribe/…');
    assert.equal(pathForLog('/lt/AbCdEfGh12345678'), '/lt/…');
    assert.equal(pathForLog('/api/v2/lists/12/subscribers'), '/api/v2/lists/12/subscribers');
  });
});
