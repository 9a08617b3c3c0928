import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { arrayParameter, queryRows, sqlArray } from '../src/db/client.js';
import { startTestApp, type TestApp } from './helper.js';

/*
 * sqlArray writes arrays of plain values as PostgreSQL's array literal itself (src/db/client.ts, arrayParameter);
 * what goes in must come back out of the database unchanged, on both drivers.
 */

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const roundTrip = async (values: readonly unknown[], type: string) => {
  const [row] = await queryRows(t.db, sql`select ${sqlArray(values, type)} as a`, (r) => r.a);
  return row;
};

describe('array parameters', () => {
  test('text comes back as it went in: quotes, backslashes, braces, commas, spaces, the word NULL, empty, null', async () => {
    const tricky = ['plain', '', 'NULL', 'null', ' padded ', 'q"uote', 'back\\slash', '\\"', '{br,ace}', 'ü ☃ 😀', 'two\nlines', null];
    assert.deepEqual(await roundTrip(tricky, 'text'), tricky);
  });

  test('integers, booleans and big integers; an empty array', async () => {
    assert.deepEqual(await roundTrip([1, -2, 2147483647, null], 'integer'), [1, -2, 2147483647, null]);
    assert.deepEqual(await roundTrip([true, false, null], 'boolean'), [true, false, null]);
    // bigint comes back as text (node-postgres) or a number (PGlite): compared as text.
    assert.deepEqual(((await roundTrip([4294967296n, -1], 'bigint')) as unknown[]).map(String), ['4294967296', '-1']);
    assert.deepEqual(await roundTrip([], 'integer'), []);
  });

  test('only plain values are written by hand; dates are left to the driver', async () => {
    assert.equal(arrayParameter([1, 'a', true, null]), '{1,"a",t,NULL}');
    const at = new Date('2026-12-06T10:00:00Z');
    assert.deepEqual(arrayParameter([at]), [at]);
    const same = await queryRows(t.db, sql`select (${sqlArray([at], 'timestamptz')})[1] = ${at.toISOString()}::timestamptz as same`, (r) => r.same);
    assert.deepEqual(same, [true]);
  });
});
