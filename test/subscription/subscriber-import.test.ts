import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import {
  attributeDefinitions,
  attributeOptions,
  blacklist,
  subscriberAttributeValues,
  subscriberHistory,
  subscribers,
  subscriptions,
} from '../../src/db/schema/index.js';
import { IMPORT_BATCH_SIZE } from '../../src/subscription/subscriber-import.service.js';
import { createList, createSubscriber, subscribe } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { importAnswer, NOTHING_MORE, reportOf } from './import-answer.js';
import { multipart, type FormPart } from '../multipart.js';

let t: TestApp;
let headers: Record<string, string>;
let login: string;
before(async () => {
  t = await startTestApp();
  const session = await t.adminWithSession();
  headers = session.headers;
  login = session.admin.loginName;
});
after(() => t.close());

let seq = 0;
/** Addresses unique to this test run, so tests never see each other's subscribers. */
const addr = (name: string) => `${name}-${++seq}@example.com`;

function upload(csv: string | Buffer, fields: Record<string, string> = {}, options: { url?: string; file?: Partial<FormPart> } = {}) {
  const parts: FormPart[] = Object.entries(fields).map(([name, value]) => ({ name, value }));
  parts.push({ name: 'file', filename: 'subscribers.csv', content: csv, contentType: 'text/csv', ...options.file } as FormPart);
  const body = multipart(parts);
  return t.inject({
    method: 'POST',
    url: options.url ?? '/api/v2/subscribers/import',
    headers: { ...headers, ...body.headers },
    payload: body.payload,
  });
}

async function byEmail(email: string) {
  const [row] = await t.db
    .select()
    .from(subscribers)
    .where(sql`lower(${subscribers.email}) = lower(${email})`);
  return row;
}

async function definition(name: string, type = 'textline', options: string[] = []) {
  const [row] = await t.db.insert(attributeDefinitions).values({ name, type }).returning();
  const opts = options.length
    ? await t.db
        .insert(attributeOptions)
        .values(options.map((o, i) => ({ definitionId: row!.id, name: o, listOrder: i + 1 })))
        .returning()
    : [];
  return { ...row!, options: opts };
}

async function valuesOf(subscriberId: number) {
  const rows = await t.db
    .select({ name: attributeDefinitions.name, value: subscriberAttributeValues.value })
    .from(subscriberAttributeValues)
    .innerJoin(attributeDefinitions, eq(attributeDefinitions.id, subscriberAttributeValues.definitionId))
    .where(eq(subscriberAttributeValues.subscriberId, subscriberId))
    .orderBy(asc(attributeDefinitions.name));
  return Object.fromEntries(rows.map((r) => [r.name, r.value]));
}

type Extra = Partial<typeof NOTHING_MORE>;
const OK = (imported: number, updated = 0, skipped = 0, errors: string[] = [], extra: Extra = {}) => ({
  imported,
  updated,
  skipped,
  errors,
  ...NOTHING_MORE,
  ...extra,
});

describe('POST /api/v2/subscribers/import: file formats', () => {
  test('BOM, CRLF, quoted fields with commas, quotes and line breaks, case-insensitive header, attributes', async () => {
    const city = await definition(`City${++seq}`, 'textarea');
    const colour = await definition(`Colour${++seq}`, 'select', ['Red', 'Blue']);
    const [a, b, c] = [addr('Ann'), addr('bob'), addr('cy')];
    const csv =
      '\uFEFFEMAIL,Confirmed,HTML_Email,' +
      `${city.name.toUpperCase()},${colour.name.toLowerCase()},Unknown Column\r\n` +
      `${a},1,yes,"Paris, France",blue,ignored\r\n` +
      `"${b}",0,no,"Line one\r\nline ""two""",Red,\r\n` +
      `${c},,,,,\r\n`;
    const res = await upload(csv);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(importAnswer(res), OK(3, 0, 0, [], { ignored_columns: ['Unknown Column'], unconfirmed: 2 }));
    const ann = (await byEmail(a))!;
    assert.equal(ann.email, a.toLowerCase(), 'addresses are stored lower-cased');
    assert.deepEqual([ann.confirmed, ann.htmlEmail, ann.blacklisted, ann.disabled], [true, true, false, false]);
    assert.match(ann.uniqueId, /^[0-9a-f]{32}$/);
    assert.deepEqual(await valuesOf(ann.id), { [city.name]: 'Paris, France', [colour.name]: String(colour.options[1]!.id) });
    const bob = (await byEmail(b))!;
    assert.deepEqual([bob.confirmed, bob.htmlEmail], [false, false]);
    assert.deepEqual(await valuesOf(bob.id), { [city.name]: 'Line one\r\nline "two"', [colour.name]: String(colour.options[0]!.id) });
    const cy = (await byEmail(c))!;
    assert.deepEqual(await valuesOf(cy.id), {});
    const history = await t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, ann.id));
    assert.deepEqual(
      history.map((h) => [h.summary, h.detail]),
      [[`Import by ${login}`, `Created by import\nattributes set: ${city.name}, ${colour.name}`]],
    );
  });

  test('semicolons, LF line endings, no BOM; blank lines are not rows', async () => {
    const [a, b] = [addr('semi'), addr('colon')];
    const res = await upload(`email;extra_data;foreignkey\n${a};"x;y";fk-${seq}\n\n${b};;\n`);
    assert.deepEqual(importAnswer(res), OK(2, 0, 0, [], { unconfirmed: 2 }));
    const first = (await byEmail(a))!;
    assert.deepEqual([first.extraData, first.foreignKey], ['x;y', `fk-${seq}`]);
    assert.equal((await byEmail(b))!.foreignKey, null);
  });

  test('line numbers of rejected rows count the header as line 1 and multi-line fields as their lines', async () => {
    const age = await definition(`Birthday${++seq}`, 'date');
    const good = addr('good');
    const csv =
      `email,${age.name}\n` + // 1
      `${addr('a')},"not\na date"\n` + // 2-3: invalid date
      `,2000-01-01\n` + // 4: blank email
      `not-an-email,\n` + // 5
      `${good},1999-12-31,too many\n` + // 6
      `${addr('b')},2001-02-30\n` + // 7: no such day
      `${good.toUpperCase()},2000-01-01\n`; // 8: fine
    const res = await upload(csv);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(
      importAnswer(res),
      OK(
        1,
        0,
        5,
        [
          `Line 2: ${age.name}: "not\na date" is not a date (expected YYYY-MM-DD).`,
          'Line 4: email: This value should not be blank.',
          'Line 5: Invalid email: not-an-email',
          'Line 6: 3 fields, but the header has 2.',
          `Line 7: ${age.name}: "2001-02-30" is not a date (expected YYYY-MM-DD).`,
        ],
        { unconfirmed: 1, report: reportOf(5) },
      ),
    );
    assert.deepEqual(await valuesOf((await byEmail(good))!.id), { [age.name]: '2000-01-01' });
  });

  test('a malformed file (quote never closed) is 422 with its line, and nothing is written', async () => {
    const a = addr('before-bad-quote');
    const res = await upload(`email,extra_data\n${a},x\n${addr('c')},"open\n`);
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), {
      message: 'Validation failed',
      errors: { file: ['Line 3: a quoted field is not closed before the end of the file.'] },
    });
    assert.equal(await byEmail(a), undefined);
  });

  test('a malformed row far into the file is reported at its own line, multi-line quoted fields (CRLF and LF) before it counted', async () => {
    // Issue 25: a bad row at line 1998 was reported at line 1199, the parser having read ahead of the rows taken.
    for (const eol of ['\r\n', '\n']) {
      const lines = ['email,extra_data'];
      // Rows 2-1001 each take two lines (a line break inside the quoted field), then one-line rows up to the bad one.
      for (let i = 0; i < 1000; i++) lines.push(`${addr('multi')},"first part${eol}second part"`);
      for (let i = 0; i < 995; i++) lines.push(`${addr('plain')},x`);
      lines.push(`${addr('bad')},"Smith" Jr`); // line 1 + 2000 + 995 + 1 = 2997
      for (let i = 0; i < 3000; i++) lines.push(`${addr('after')},y`);
      const res = await upload(`${lines.join(eol)}${eol}`);
      assert.equal(res.statusCode, 422);
      assert.deepEqual(res.json(), {
        message: 'Validation failed',
        errors: { file: ['Line 2997: a quoted field is followed by other characters (write a quote inside a quoted field as "").'] },
      });
    }
    // A quote left open on a multi-line record: the line that record starts on.
    const open = await upload(`email,extra_data\n${addr('m')},"a\nb"\n${addr('n')},x\n${addr('o')},"open\nnever\nclosed\n`);
    assert.deepEqual(open.json(), {
      message: 'Validation failed',
      errors: { file: ['Line 5: a quoted field is not closed before the end of the file.'] },
    });
  });

  test('more rows than one batch: duplicates across the boundary, line numbers after it', async () => {
    const list = await createList(t.db);
    const prefix = `batch${++seq}`;
    // Confirmed rows: no confirmation mails, which would reach the SMTP sink other tests read.
    const lines = ['email,confirmed'];
    for (let i = 0; i < IMPORT_BATCH_SIZE + 3; i++) lines.push(`${prefix}-${i}@example.com,1`);
    lines.push(`${prefix}-0@example.com,1`); // already imported in the first batch
    lines.push('broken,1');
    const res = await upload(`${lines.join('\n')}\n`, { list_id: String(list.id) });
    assert.deepEqual(
      importAnswer(res),
      OK(IMPORT_BATCH_SIZE + 3, 0, 2, [`Line ${IMPORT_BATCH_SIZE + 6}: Invalid email: broken`], {
        duplicates_in_file: 1,
        report: reportOf(2),
      }),
    );
    const [members] = await t.db.select({ n: count() }).from(subscriptions).where(eq(subscriptions.listId, list.id));
    assert.equal(members!.n, IMPORT_BATCH_SIZE + 3);
    const [histories] = await t.db
      .select({ n: count() })
      .from(subscriberHistory)
      .innerJoin(subscribers, eq(subscribers.id, subscriberHistory.subscriberId))
      .where(sql`${subscribers.email} like ${`${prefix}-%`}`);
    assert.equal(histories!.n, IMPORT_BATCH_SIZE + 3);
  });
});

describe('POST /api/v2/subscribers/import: existing subscribers', () => {
  test('update_existing off: skipped, unchanged; on: overwritten, counted, history names the changes', async () => {
    const email = addr('existing');
    const city = await definition(`Town${++seq}`);
    const existing = await createSubscriber(t.db, { email, confirmed: false, htmlEmail: false, extraData: 'old' });
    const csv = `email,confirmed,html_email,extra_data,${city.name}\n${email.toUpperCase()},1,1,new,Oslo\n`;
    const off = await upload(csv);
    assert.deepEqual(importAnswer(off), OK(0, 0, 1, [], { existing_subscribers: 1, report: reportOf(1) }));
    assert.equal((await byEmail(email))!.confirmed, false);
    assert.deepEqual(await valuesOf(existing.id), {});

    const on = await upload(csv, { update_existing: 'true' });
    assert.deepEqual(importAnswer(on), OK(0, 1, 0, [], { existing_subscribers: 1, report: reportOf(1) }));
    const row = (await byEmail(email))!;
    assert.deepEqual([row.email, row.confirmed, row.htmlEmail, row.extraData], [email, true, true, 'new']);
    assert.deepEqual(await valuesOf(existing.id), { [city.name]: 'Oslo' });
    const [entry] = await t.db.select().from(subscriberHistory).where(eq(subscriberHistory.subscriberId, existing.id));
    assert.equal(entry!.summary, `Import by ${login}`);
    assert.equal(
      entry!.detail,
      `confirmed = true *changed* from false\nhtml_email = true *changed* from false\nextra_data *changed*\nattributes set: ${city.name}`,
    );
  });

  test('foreign key matches first (the address can change); address and key of two subscribers conflict', async () => {
    const fk = `crm-${++seq}`;
    const keyed = await createSubscriber(t.db, { email: addr('keyed'), foreignKey: fk });
    const other = await createSubscriber(t.db, { email: addr('other') });
    const moved = addr('moved');
    const res = await upload(`foreignkey,email\n${fk},${moved}\n${fk},${other.email}\n`, { update_existing: '1' });
    assert.deepEqual(
      importAnswer(res),
      OK(0, 1, 1, ['Line 3: Conflict: email and foreign key refer to different subscribers.'], {
        unconfirmed: 1,
        existing_subscribers: 1,
        report: reportOf(2),
      }),
    );
    assert.equal((await byEmail(moved))!.id, keyed.id);
  });

  test('invalid addresses: skipped by default; with skip_invalid_emails false stored as invalid_<email>', async () => {
    const bad = `bad-${++seq}`;
    const skipped = await upload(`email\n${bad}\n`);
    assert.deepEqual(importAnswer(skipped), OK(0, 0, 1, [`Line 2: Invalid email: ${bad}`], { report: reportOf(1) }));
    const list = await createList(t.db);
    const kept = await upload(`email\n${bad}\n`, { skip_invalid_emails: 'false', list_id: String(list.id) });
    assert.deepEqual(importAnswer(kept), OK(1, 0, 0, [], { unconfirmed: 1 }));
    const row = (await byEmail(`invalid_${bad}`))!;
    assert.equal(row.confirmed, false);
    const [member] = await t.db.select().from(subscriptions).where(eq(subscriptions.subscriberId, row.id));
    assert.equal(member?.listId, list.id, 'subscribed, though never mailed');
  });
});

describe('POST /api/v2/subscribers/import: lists, confirmation, blacklist', () => {
  test('new unconfirmed members get the confirmation mail; confirmed and blacklisted ones do not', async () => {
    const list = await createList(t.db);
    const already = await createSubscriber(t.db, { email: addr('member'), confirmed: false });
    await subscribe(t.db, list.id, already.id);
    const flagged = await createSubscriber(t.db, { email: addr('flagged'), blacklisted: true });
    const listed = addr('listed');
    await t.db.insert(blacklist).values({ email: listed.toUpperCase() });
    const [fresh, confirmed, selfBlacklisted] = [addr('fresh'), addr('confirmed'), addr('self-blacklisted')];
    const before = t.smtp.messages.length;
    const csv =
      `email,confirmed,blacklisted\n${fresh},0,0\n${confirmed},1,0\n${already.email},0,0\n${flagged.email},0,0\n` +
      `${listed},0,0\n${selfBlacklisted},0,1\n`;
    const res = await upload(csv, { list_id: String(list.id) });
    assert.deepEqual(
      importAnswer(res),
      OK(3, 0, 3, [`Line 6: ${listed} is blacklisted; not imported.`], { unconfirmed: 2, existing_subscribers: 2, report: reportOf(3) }),
    );
    const members = await t.db
      .select({ email: subscribers.email })
      .from(subscriptions)
      .innerJoin(subscribers, eq(subscribers.id, subscriptions.subscriberId))
      .where(eq(subscriptions.listId, list.id))
      .orderBy(asc(subscribers.id));
    assert.deepEqual(
      members.map((m) => m.email),
      [already.email, fresh, confirmed],
    );
    assert.equal(await byEmail(listed), undefined);
    assert.equal((await byEmail(flagged.email))!.blacklisted, true);
    assert.equal((await byEmail(selfBlacklisted))!.blacklisted, true);
    const [entry] = await t.db.select().from(blacklist).where(eq(blacklist.email, selfBlacklisted));
    assert.equal(entry?.reason, 'Blacklisted by import', 'the flag and the blacklist table stay one store');

    const mails = await t.smtp.waitFor(before + 1);
    const mail = mails[before]!;
    const freshRow = (await byEmail(fresh))!;
    assert.deepEqual(mail.envelope.to, [fresh]);
    assert.equal(mail.parsed.subject, 'Please confirm your subscription');
    assert.match(mail.parsed.text ?? '', new RegExp(`/api/v2/subscribers/confirm\\?uniqueId=${freshRow.uniqueId}`));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(t.smtp.messages.length, before + 1, 'only the new unconfirmed member is mailed');
  });

  test('existing subscribers are subscribed without update_existing; send_confirmation=false mails nobody', async () => {
    const list = await createList(t.db);
    const known = await createSubscriber(t.db, { email: addr('known'), confirmed: false });
    const fresh = addr('quiet');
    const before = t.smtp.messages.length;
    const res = await upload(`email\n${known.email}\n${fresh}\n`, { list_id: String(list.id), send_confirmation: 'false' });
    assert.deepEqual(importAnswer(res), OK(1, 0, 1, [], { unconfirmed: 1, existing_subscribers: 1, report: reportOf(1) }));
    const members = await t.db.select().from(subscriptions).where(eq(subscriptions.listId, list.id));
    assert.deepEqual(members.map((m) => m.subscriberId).sort(), [known.id, (await byEmail(fresh))!.id].sort());
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(t.smtp.messages.length, before);
  });

  test('an import never lifts a blacklisting, even with update_existing and blacklisted=0', async () => {
    const list = await createList(t.db);
    const flagged = await createSubscriber(t.db, { email: addr('stays'), blacklisted: true });
    const res = await upload(`email,blacklisted\n${flagged.email},0\n`, { update_existing: 'yes', list_id: String(list.id) });
    assert.deepEqual(importAnswer(res), OK(0, 1, 0, [], { unconfirmed: 1, existing_subscribers: 1, report: reportOf(1) }));
    assert.equal((await byEmail(flagged.email))!.blacklisted, true);
    const rows = await t.db.select().from(subscriptions).where(eq(subscriptions.listId, list.id));
    assert.deepEqual(rows, []);
  });

  test('an unknown list is 404 before the file is read; a list of another administrator is 403', async () => {
    const email = addr('no-list');
    const res = await upload(`email\n${email}\n`, { list_id: '999999' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { message: 'Subscriber list not found.' });
    const other = await t.adminWithSession();
    const owned = await createList(t.db, { ownerId: other.admin.id });
    const denied = await upload(`email\n${email}\n`, { list_id: String(owned.id) });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), { message: 'Access denied.' });
    assert.equal(await byEmail(email), undefined);
  });

  test('options in the query string work, and make the file stream: an option field after it is refused', async () => {
    const list = await createList(t.db);
    const email = addr('query');
    const res = await upload(`email\n${email}\n`, {}, { url: `/api/v2/subscribers/import?list_id=${list.id}` });
    assert.deepEqual(importAnswer(res), OK(1, 0, 0, [], { unconfirmed: 1 }));
    const rows = await t.db.select().from(subscriptions).where(eq(subscriptions.listId, list.id));
    assert.equal(rows.length, 1);

    const late = addr('late');
    const body = multipart([
      { name: 'file', filename: 'a.csv', content: `email\n${late}\n` },
      { name: 'update_existing', value: '1' },
    ]);
    const refused = await t.inject({
      method: 'POST',
      url: `/api/v2/subscribers/import?list_id=${list.id}`,
      headers: { ...headers, ...body.headers },
      payload: body.payload,
    });
    assert.equal(refused.statusCode, 422);
    assert.deepEqual(refused.json(), {
      message: 'Validation failed',
      errors: { update_existing: ['Send this field before the file, or in the query string.'] },
    });
    assert.equal(await byEmail(late), undefined);
  });
});

describe('POST /api/v2/subscribers/import: refusals', () => {
  const failure = (field: string, message: string) => ({ message: 'Validation failed', errors: { [field]: [message] } });

  test('no email column, empty file, no file, not a CSV, bad list_id: 422', async () => {
    assert.deepEqual((await upload('name,city\nAnn,Oslo\n')).json(), failure('file', 'The header (line 1) has no email column.'));
    assert.deepEqual((await upload('')).json(), failure('file', 'The file is empty: the first line must name the columns.'));
    const noFile = multipart([{ name: 'list_id', value: '1' }]);
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/subscribers/import',
      headers: { ...headers, ...noFile.headers },
      payload: noFile.payload,
    });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), failure('file', 'No file uploaded'));
    const txt = await upload('email\na@example.com\n', {}, { file: { filename: 'a.txt', contentType: 'text/plain' } });
    assert.equal(txt.statusCode, 422);
    assert.deepEqual(txt.json(), failure('file', 'File must be a CSV (text/csv, or a name ending in .csv).'));
    const named = await upload(`email\n${addr('named')}\n`, {}, { file: { filename: 'x.CSV', contentType: 'application/octet-stream' } });
    assert.deepEqual(named.json(), OK(1, 0, 0, [], { unconfirmed: 1 }));
    const badList = await upload('email\n', { list_id: 'abc' });
    assert.deepEqual(badList.json(), failure('list_id', 'This value should be a positive integer.'));
  });

  test('not multipart: 415', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/v2/subscribers/import', headers, payload: { email: 'a@example.com' } });
    assert.equal(res.statusCode, 415);
    assert.deepEqual(res.json(), { message: 'Send the CSV file as multipart/form-data, in a field named "file".' });
  });

  test('no session 403; without the subscribers privilege 403', async () => {
    const anonymous = await t.inject({ method: 'POST', url: '/api/v2/subscribers/import' });
    assert.equal(anonymous.statusCode, 403);
    assert.deepEqual(anonymous.json(), { message: 'No valid session key was provided as basic auth password.' });
    const weak = await t.adminWithSession({ superUser: false, privileges: { campaigns: true } });
    const body = multipart([{ name: 'file', filename: 'a.csv', content: 'email\n' }]);
    const res = await t.inject({
      method: 'POST',
      url: '/api/v2/subscribers/import',
      headers: { ...weak.headers, ...body.headers },
      payload: body.payload,
    });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), { message: 'You are not allowed to create subscribers.' });
  });

  test('GET reads as /subscribers/{subscriberId} with a non-numeric id: the route-level 404 (phpList: 405)', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v2/subscribers/import', headers });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { message: 'No route found for "GET http://localhost:80/api/v2/subscribers/import"' });
  });
});

describe('POST /api/v2/subscribers/import: upload limit', () => {
  let small: TestApp;
  let smallHeaders: Record<string, string>;
  before(async () => {
    small = await startTestApp({ uploadLimit: 2048 });
    smallHeaders = (await small.adminWithSession()).headers;
  });
  after(() => small.close());
  const TOO_LARGE = { message: 'The file is larger than the upload limit of 2048 bytes.' };

  async function send(csv: string) {
    const body = multipart([{ name: 'file', filename: 'big.csv', content: csv }]);
    return small.inject({
      method: 'POST',
      url: '/api/v2/subscribers/import',
      headers: { ...smallHeaders, ...body.headers },
      payload: body.payload,
    });
  }

  test('a body announced far over the limit: 413 before reading', async () => {
    const res = await send(`email\n${'x@example.com\n'.repeat(10_000)}`);
    assert.equal(res.statusCode, 413);
    assert.deepEqual(res.json(), TOO_LARGE);
  });

  test('a file found over the limit while streaming or spooling: 413 and nothing written', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => `limit-${i}@example.com`);
    const res = await send(`email\n${rows.join('\n')}\n`);
    assert.equal(res.statusCode, 413);
    assert.deepEqual(res.json(), TOO_LARGE);
    // An option first: the file streams into the transaction instead of a temporary file.
    const body = multipart([
      { name: 'update_existing', value: '1' },
      { name: 'file', filename: 'big.csv', content: `email\n${rows.join('\n')}\n` },
    ]);
    const streamed = await small.inject({
      method: 'POST',
      url: '/api/v2/subscribers/import',
      headers: { ...smallHeaders, ...body.headers },
      payload: body.payload,
    });
    assert.deepEqual([streamed.statusCode, streamed.json()], [413, TOO_LARGE]);
    const found = await small.db.select().from(subscribers).where(inArray(subscribers.email, rows));
    assert.deepEqual(found, []);
  });

  test('a file within the limit is imported', async () => {
    const res = await send('email\nfits@example.com\n');
    assert.deepEqual(importAnswer(res), OK(1, 0, 0, [], { unconfirmed: 1 }));
    const [row] = await small.db
      .select()
      .from(subscribers)
      .where(and(eq(subscribers.email, 'fits@example.com')));
    assert.ok(row);
  });
});
