import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bool, int, intOrNull, num, text, textOrNull, timestamp, timestampOrNull } from '../src/db/row.js';

// The readers row mappers use: both drivers' value types are accepted, anything else names the column.
describe('raw row readers', () => {
  test('integers come as numbers (PGlite) or text (node-postgres bigint)', () => {
    assert.equal(int({ n: 42 }, 'n'), 42);
    assert.equal(int({ n: '9007199254740991' }, 'n'), 9007199254740991);
    assert.equal(intOrNull({ n: null }, 'n'), null);
    assert.throws(() => int({ n: 1.5 }, 'n'), /column n: expected an integer, got number/);
    assert.throws(() => int({}, 'missing'), /column missing: expected an integer, got undefined/);
  });

  test('numbers with a fraction, text, booleans', () => {
    assert.equal(num({ r: '2.5' }, 'r'), 2.5);
    assert.equal(text({ t: 'a' }, 't'), 'a');
    assert.equal(textOrNull({ t: null }, 't'), null);
    assert.equal(bool({ b: false }, 'b'), false);
    assert.throws(() => num({ r: 'x' }, 'r'), /column r: expected a number/);
    assert.throws(() => text({ t: 1 }, 't'), /column t: expected text, got number/);
    assert.throws(() => bool({ b: 't' }, 'b'), /column b: expected a boolean, got string/);
  });

  test('timestamps come as Date or text', () => {
    const at = new Date('2026-11-26T10:00:00Z');
    assert.deepEqual(timestamp({ at }, 'at'), at);
    assert.deepEqual(timestamp({ at: '2026-11-26 10:00:00+00' }, 'at'), at);
    assert.equal(timestampOrNull({ at: null }, 'at'), null);
    assert.throws(() => timestamp({ at: 'yesterday' }, 'at'), /column at: expected a timestamp, got string/);
  });
});
