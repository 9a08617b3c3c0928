import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { subscribers } from '../../src/db/schema/index.js';
import { createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { importAnswer, NOTHING_MORE, reportOf } from './import-answer.js';
import { multipart, type FormPart } from '../multipart.js';

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  headers = (await t.adminWithSession()).headers;
});
after(() => t.close());

function upload(csv: string, fields: Record<string, string>, url = '/api/v2/subscribers/import') {
  const parts: FormPart[] = Object.entries(fields).map(([name, value]) => ({ name, value }));
  parts.push({ name: 'file', filename: 'people.csv', content: csv, contentType: 'text/csv' } as FormPart);
  const body = multipart(parts);
  return t.inject({ method: 'POST', url, headers: { ...headers, ...body.headers }, payload: body.payload });
}

async function confirmedOf(email: string) {
  const [row] = await t.db
    .select()
    .from(subscribers)
    .where(sql`lower(${subscribers.email}) = lower(${email})`);
  return row?.confirmed;
}

describe('POST /api/v2/subscribers/import with mark_confirmed (ours)', () => {
  test('a file without a confirmed column is imported confirmed; where the file has the column, it wins', async () => {
    const res = await upload('email,html_email\nmc.one@example.com,1\n', { mark_confirmed: 'true' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(importAnswer(res), { imported: 1, updated: 0, skipped: 0, errors: [], ...NOTHING_MORE, unconfirmed: 0 });
    assert.equal(await confirmedOf('mc.one@example.com'), true);
    const column = await upload('email,confirmed\nmc.two@example.com,0\nmc.three@example.com,1\n', { mark_confirmed: 'true' });
    assert.deepEqual(importAnswer(column), { imported: 2, updated: 0, skipped: 0, errors: [], ...NOTHING_MORE, unconfirmed: 1 });
    assert.equal(await confirmedOf('mc.two@example.com'), false);
    assert.equal(await confirmedOf('mc.three@example.com'), true);
  });

  test('without it (or with false) imported people stay unconfirmed, as in phpList', async () => {
    for (const fields of [{}, { mark_confirmed: 'false' }] as Record<string, string>[]) {
      const email = `mc.default-${Object.keys(fields).length}@example.com`;
      const res = await upload(`email\n${email}\n`, fields);
      assert.deepEqual(importAnswer(res), { imported: 1, updated: 0, skipped: 0, errors: [], ...NOTHING_MORE, unconfirmed: 1 });
      assert.equal(await confirmedOf(email), false);
    }
  });

  test('with update_existing an existing unconfirmed subscriber becomes confirmed; the option may come in the query', async () => {
    const existing = await createSubscriber(t.db, { email: 'mc.existing@example.com', confirmed: false });
    const res = await upload(`email\n${existing.email}\n`, { update_existing: '1' }, '/api/v2/subscribers/import?mark_confirmed=1');
    assert.deepEqual(importAnswer(res), {
      imported: 0,
      updated: 1,
      skipped: 0,
      errors: [],
      ...NOTHING_MORE,
      existing_subscribers: 1,
      report: reportOf(1),
    });
    assert.equal(await confirmedOf(existing.email), true);
  });

  test('an invalid address imported as invalid_<email> is never marked confirmed', async () => {
    const res = await upload('email\nnot-an-address\n', { mark_confirmed: 'yes', skip_invalid_emails: 'false' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().imported, 1);
    assert.equal(res.json().unconfirmed, 1);
    assert.equal(await confirmedOf('invalid_not-an-address'), false);
  });
});
