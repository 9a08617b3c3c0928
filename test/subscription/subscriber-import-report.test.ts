import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { asc, eq, inArray } from 'drizzle-orm';
import { attributeDefinitions, subscriberAttributeValues, subscribers } from '../../src/db/schema/index.js';
import { createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { importAnswer, NOTHING_MORE, reportOf } from './import-answer.js';
import { multipart } from '../multipart.js';

/*
 * Issue 25, Daily work › Import: columns mapped to attributes by the `columns` option instead of renamed headers;
 * the rows that created nobody downloadable with their reasons; duplicates counted and named.
 */

let t: TestApp;
let headers: Record<string, string>;
before(async () => {
  t = await startTestApp();
  headers = (await t.adminWithSession()).headers;
});
after(() => t.close());

let seq = 0;
const addr = (name: string) => `${name}-${++seq}@example.com`;

function upload(csv: string, fields: Record<string, string> = {}, as = headers) {
  const body = multipart([
    ...Object.entries(fields).map(([name, value]) => ({ name, value })),
    { name: 'file', filename: 'people.csv', content: csv, contentType: 'text/csv' },
  ]);
  return t.inject({ method: 'POST', url: '/api/v2/subscribers/import', headers: { ...as, ...body.headers }, payload: body.payload });
}

async function definition(name: string, type = 'textline') {
  const [row] = await t.db.insert(attributeDefinitions).values({ name, type }).returning();
  return row!;
}

async function valuesOf(email: string): Promise<Record<string, string | null>> {
  const rows = await t.db
    .select({ name: attributeDefinitions.name, value: subscriberAttributeValues.value })
    .from(subscriberAttributeValues)
    .innerJoin(attributeDefinitions, eq(attributeDefinitions.id, subscriberAttributeValues.definitionId))
    .innerJoin(subscribers, eq(subscribers.id, subscriberAttributeValues.subscriberId))
    .where(eq(subscribers.email, email))
    .orderBy(asc(attributeDefinitions.name));
  return Object.fromEntries(rows.map((r) => [r.name, r.value]));
}

function reportsOnDisk(): string[] {
  const dir = join(t.config.dataDir, 'import-reports');
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

async function stored(emails: string[]): Promise<string[]> {
  const rows = await t.db.select({ email: subscribers.email }).from(subscribers).where(inArray(subscribers.email, emails));
  return rows.map((r) => r.email);
}

describe('POST /api/v2/subscribers/import with columns (ours): a mapping instead of renamed headers', () => {
  test('each column goes where the mapping says, whatever its header; a column mapped to null is not imported', async () => {
    const first = await definition(`first_name_${++seq}`);
    const city = await definition(`City${++seq}`);
    const [a, b] = [addr('mapped'), addr('mapped')];
    const csv = `E-mail address;Vorname;Stadt;email;Notizen\n${a};Ann;Oslo;x@example.com;n1\n${b};Bob;;y@example.com;n2\n`;
    const columns = { 'E-mail address': 'email', Vorname: first.id, Stadt: city.id, email: null, Notizen: 'extra_data' };
    const res = await upload(csv, { columns: JSON.stringify(columns), mark_confirmed: '1' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(importAnswer(res), { imported: 2, updated: 0, skipped: 0, errors: [], ...NOTHING_MORE });
    assert.deepEqual(await valuesOf(a), { [city.name]: 'Oslo', [first.name]: 'Ann' });
    assert.deepEqual(await valuesOf(b), { [first.name]: 'Bob' });
    const [row] = await t.db.select().from(subscribers).where(eq(subscribers.email, b));
    assert.equal(row!.extraData, 'n2');
    assert.deepEqual(await stored(['x@example.com', 'y@example.com']), []);
  });

  test('columns the mapping leaves out go by their names; one the mapping already filled is ignored', async () => {
    const city = await definition(`Town${++seq}`);
    const email = addr('partial');
    const csv = `mail,${city.name},email,Ort\n${email},Rome,other@example.com,Bergen\n`;
    const res = await upload(csv, { columns: JSON.stringify({ mail: 'email', Ort: city.id }), mark_confirmed: '1' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(importAnswer(res), { imported: 1, updated: 0, skipped: 0, errors: [], ...NOTHING_MORE, ignored_columns: [city.name, 'email'] });
    assert.deepEqual(await valuesOf(email), { [city.name]: 'Bergen' });
  });

  test('a mapping that cannot be followed is 422 naming what is wrong, and nothing is written', async () => {
    const city = await definition(`Place${++seq}`);
    const email = addr('refused');
    const csv = `address,place\n${email},Lima\n`;
    const cases: [unknown, string][] = [
      ['{not json', 'This value should be a JSON object mapping header names to "email", null, a subscriber field or an attribute id.'],
      [['email'], 'This value should be a JSON object mapping header names to "email", null, a subscriber field or an attribute id.'],
      [{ address: 'email', place: 999999 }, '"place" maps to attribute 999999, which does not exist.'],
      [
        { address: 'email', place: 'town' },
        '"place" maps to "town": use "email", null (not imported), one of confirmed, blacklisted, html_email, disabled, extra_data, foreignkey, or an attribute id.',
      ],
      [{ address: 'email', place: 1.5 }, '"place" maps to 1.5, which is not an attribute id (a positive integer).'],
      [{ address: null, place: city.id }, 'No column is mapped to email: the import needs one.'],
      [{ address: 'email', Place: city.id }, '"Place" is not a column of the file (its header has: address, place).'],
      [{ address: 'email', place: 'email' }, '"address" and "place" are both mapped to email; map one column to it.'],
    ];
    for (const [columns, message] of cases) {
      const res = await upload(csv, { columns: typeof columns === 'string' ? columns : JSON.stringify(columns) });
      assert.deepEqual(
        [res.statusCode, res.json()],
        [422, { message: 'Validation failed', errors: { columns: [message] } }],
        JSON.stringify(columns),
      );
    }
    assert.deepEqual(await stored([email]), []);
  });

  test('the mapping may come in the query string, as the other options', async () => {
    const email = addr('query-mapped');
    const body = multipart([{ name: 'file', filename: 'a.csv', content: `Adresse\n${email}\n` }]);
    const res = await t.inject({
      method: 'POST',
      url: `/api/v2/subscribers/import?columns=${encodeURIComponent(JSON.stringify({ Adresse: 'email' }))}`,
      headers: { ...headers, ...body.headers },
      payload: body.payload,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(await stored([email]), [email]);
  });
});

describe('GET /api/v2/import-reports/{id} (ours): the rows that created nobody, with why', () => {
  test('rejected rows, repeats within the file and existing subscribers: counted in the answer, each row in the CSV', async () => {
    const known = await createSubscriber(t.db, { email: addr('known'), confirmed: true });
    const [fresh, twice, wide] = [addr('fresh'), addr('twice'), addr('wide')];
    const csv =
      'email,Comment\n' + // 1
      `${fresh},"first, new"\n` + // 2
      `${twice},once\n` + // 3
      `not-an-address,"=HYPERLINK(""x"")"\n` + // 4: rejected
      `${known.email},old\n` + // 5: existing subscriber
      `${twice.toUpperCase()},again\n` + // 6: repeats line 3
      `${wide},a,b\n`; // 7: one field too many
    const res = await upload(csv, { mark_confirmed: '1' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(importAnswer(res), {
      imported: 2,
      updated: 0,
      skipped: 4,
      errors: ['Line 4: Invalid email: not-an-address', 'Line 7: 3 fields, but the header has 2.'],
      ignored_columns: ['Comment'],
      unconfirmed: 0,
      duplicates_in_file: 1,
      existing_subscribers: 1,
      report: reportOf(4),
    });

    const report = await t.inject({ method: 'GET', url: res.json().report.url, headers });
    assert.equal(report.statusCode, 200);
    assert.equal(report.headers['content-type'], 'text/csv; charset=utf-8');
    assert.match(String(report.headers['content-disposition']), /^attachment; filename=import-report-[0-9a-f-]{36}\.csv$/);
    assert.equal(
      report.body,
      [
        'email,Comment,line,outcome,reason',
        `not-an-address,"'=HYPERLINK(""x"")",4,rejected,Invalid email: not-an-address`,
        `${known.email},old,5,existing_subscriber,Already a subscriber; not updated (update_existing is off).`,
        `${twice.toUpperCase()},again,6,duplicate_in_file,The address (or foreign key) is on an earlier line of this file; not updated (update_existing is off).`,
        `${wide},a,7,rejected,"3 fields, but the header has 2.",b`,
        '',
      ].join('\r\n'),
    );
  });

  test("the report is in the file's order across batches, whichever of parser and database decides a row first", async () => {
    // 3,500 rows in four batches: every 7th an invalid address (rejected while parsing, ahead of the batch being
    // written), every 5th an existing subscriber (found when its batch is written).
    const existing = new Set<number>();
    const lines = ['email'];
    for (let i = 0; i < 3500; i++) {
      if (i % 7 === 3) lines.push(`invalid-${i}`);
      else if (i % 5 === 1) {
        lines.push((await createSubscriber(t.db, { email: addr(`order-old-${i}`) })).email);
        existing.add(i + 2);
      } else lines.push(addr(`order-new-${i}`));
    }
    const res = await upload(lines.join('\n') + '\n', { skip_invalid_emails: '1' });
    assert.equal(res.statusCode, 200, res.body);
    const report = await t.inject({ method: 'GET', url: res.json().report.url, headers });
    const reported = report.body
      .trim()
      .split('\r\n')
      .slice(1)
      .map((row) => {
        const [, line, outcome] = row.split(',');
        return { line: Number(line), outcome };
      });
    const expected = [];
    for (let i = 0; i < 3500; i++) {
      if (i % 7 === 3) expected.push({ line: i + 2, outcome: 'rejected' });
      else if (existing.has(i + 2)) expected.push({ line: i + 2, outcome: 'existing_subscriber' });
    }
    assert.deepEqual(reported, expected);
  });

  test('with update_existing the repeats and existing subscribers are updated, and say so', async () => {
    const known = await createSubscriber(t.db, { email: addr('known'), confirmed: false });
    const twice = addr('twice');
    const res = await upload(`email,confirmed\n${twice},0\n${known.email},1\n${twice},1\n`, { update_existing: '1' });
    assert.deepEqual(importAnswer(res), {
      imported: 1,
      updated: 2,
      skipped: 0,
      errors: [],
      ...NOTHING_MORE,
      unconfirmed: 1, // counted when its first row created it unconfirmed
      duplicates_in_file: 1,
      existing_subscribers: 1,
      report: reportOf(2),
    });
    const report = await t.inject({ method: 'GET', url: res.json().report.url, headers });
    assert.equal(
      report.body,
      [
        'email,confirmed,line,outcome,reason',
        `${known.email},1,3,existing_subscriber,Already a subscriber; updated with this row.`,
        `${twice},1,4,duplicate_in_file,The address (or foreign key) is on an earlier line of this file; updated with this row.`,
        '',
      ].join('\r\n'),
    );
  });

  test('only the administrator who ran the import gets the report; an unknown id is 404', async () => {
    const res = await upload(`email\nbroken\n`);
    const { url } = res.json().report;
    const other = await t.adminWithSession();
    const theirs = await t.inject({ method: 'GET', url, headers: other.headers });
    const message = 'No such import report: it belongs to another administrator, or is older than 24 hours.';
    assert.deepEqual([theirs.statusCode, theirs.json()], [404, { message }]);
    for (const id of ['00000000-0000-4000-8000-000000000000', '..%2F..%2Fetc%2Fpasswd', 'x']) {
      const unknown = await t.inject({ method: 'GET', url: `/api/v2/import-reports/${id}`, headers });
      assert.deepEqual([unknown.statusCode, unknown.json()], [404, { message }], id);
    }
    const anonymous = await t.inject({ method: 'GET', url });
    assert.equal(anonymous.statusCode, 403);
  });

  test('a file of nothing but rejected rows: every row in the report, written out as the import goes', async () => {
    const rows = ['email,note'];
    for (let i = 0; i < 30_000; i++) rows.push(`broken-${i},${'x'.repeat(20)}`);
    const res = await upload(`${rows.join('\n')}\n`);
    assert.equal(res.statusCode, 200);
    const answer = res.json();
    assert.deepEqual([answer.imported, answer.skipped, answer.report.rows], [0, 30_000, 30_000]);
    const report = await t.inject({ method: 'GET', url: answer.report.url, headers });
    const lines = report.body.trimEnd().split('\r\n');
    assert.equal(lines.length, 30_001);
    assert.equal(lines[30_000], `broken-29999,${'x'.repeat(20)},30001,rejected,Invalid email: broken-29999`);
  });

  test('an import that fails (malformed file) leaves no report behind', async () => {
    const before = reportsOnDisk();
    const rows = ['email'];
    // Enough rejected rows that part of the report was written to disk before the bad quote is found.
    for (let i = 0; i < 20_000; i++) rows.push(`broken-${i}`);
    const res = await upload(`${rows.join('\n')}\n"open\n`);
    assert.equal(res.statusCode, 422);
    assert.deepEqual(reportsOnDisk(), before);
  });
});
