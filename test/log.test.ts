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

  test('paths that match no route lose query strings and every segment that could be a credential', () => {
    const path = (url: string) => pathForLog({ url });
    assert.equal(path('/api/v2/subscribers?find_value=jane@example.com'), '/api/v2/subscribers');
    assert.equal(path('/api/v2/blacklist/check/jane%40example.com'), '/api/v2/blacklist/check/…');
    assert.equal(path('/api/v2/blacklist/remove/jane@example.com'), '/api/v2/blacklist/remove/…');
    assert.equal(path('/api/v2/unsubscribe/AbCdEf123'), '/api/v2/unsubscribe/…');
    assert.equal(path('/lt/AbCdEfGh12345678'), '/lt/…');
    assert.equal(path('/preferences/abcdef0123456789abcdef0123456789/x'), '/preferences/…/x');
    assert.equal(path('/api/v2/lists/12/subscribers'), '/api/v2/lists/12/subscribers');
  });

  test('paths of a route keep its integer parameters only; every other parameter shows as its name', () => {
    const route = (url: string, pattern: string, params: Record<string, string>, schema?: unknown) =>
      pathForLog({ url, params, routeOptions: { url: pattern, schema: { params: schema } } });
    const ids = { type: 'object', properties: { listId: { type: 'integer' }, token: { type: 'string' } } };
    assert.equal(
      route('/api/v2/lists/12/subscribers?x=1', '/api/v2/lists/:listId/subscribers', { listId: '12' }, ids),
      '/api/v2/lists/12/subscribers',
    );
    assert.equal(route('/preferences/SeCrEt', '/preferences/:token', { token: 'SeCrEt' }, ids), '/preferences/:token');
    // No schema at all: nothing is written.
    assert.equal(route('/forward/123', '/forward/:token', { token: '123' }), '/forward/:token');
  });
});
