import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helper.js';
import { startSmtpSink } from '../smtp-sink.js';

/*
 * Settings in the database (issue 26): GET/PATCH /api/v2/settings for super users, env wins and is shown read-only,
 * SMTP passwords never come back, bad values are 422 naming the field with nothing written, and a change made
 * through one process applies in another without a restart.
 */

const PASSWORD = 's3cret-Pa55word';

describe('settings API', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  let adminId: number;
  before(async () => {
    // As a process started without MAIL_FROM, SMTP_URL, SUBSCRIBER_HTML_DEFAULT and PUBLIC_URL: all are the console's.
    t = await startTestApp({ settingsFromEnv: [], settingsPollMs: 0 });
    const s = await t.adminWithSession();
    headers = s.headers;
    adminId = s.admin.id;
  });
  after(async () => t?.close());

  const get = () => t.inject({ method: 'GET', url: '/api/v2/settings', headers });
  const patch = (payload: object) => t.inject({ method: 'PATCH', url: '/api/v2/settings', headers, payload });

  test('anonymous: 403 (phpList answers a missing session so); an administrator who is not a super user: 403', async () => {
    assert.equal((await t.inject({ method: 'GET', url: '/api/v2/settings' })).statusCode, 403);
    const other = await t.adminWithSession({ loginName: 'not-super', superUser: false });
    for (const [method, payload] of [
      ['GET', undefined],
      ['PATCH', { organisation_name: 'X' }],
      ['POST', {}],
    ] as const) {
      const url = method === 'POST' ? '/api/v2/settings/smtp-test' : '/api/v2/settings';
      const res = await t.inject({ method, url, headers: other.headers, ...(payload ? { payload } : {}) });
      assert.equal(res.statusCode, 403, `${method} ${url}`);
      assert.deepEqual(res.json(), { message: 'Only super users may see and change the settings.' });
    }
  });

  test('before any change: the configuration, whole', async () => {
    const res = await get();
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      from_address: 'mailroom@localhost',
      from_name: 'Mailroom',
      reply_to: '',
      organisation_name: '',
      logo: null,
      smtp_servers: [{ url: t.smtp.url, has_password: false }],
      subscriber_html_default: true,
      public_url: 'http://localhost:8080',
      from_environment: {},
      updated_at: null,
      updated_by: null,
    });
  });

  test('a change is stored and applied; the SMTP password is never returned, and kept when not given again', async () => {
    const first = await patch({
      from_address: 'news@example.org',
      from_name: 'Garden Club',
      reply_to: 'help@example.org',
      organisation_name: 'The Garden Club',
      subscriber_html_default: false,
      smtp_servers: [{ url: 'smtp://mailer@relay.example.org:587?tls=required', password: PASSWORD }],
    });
    assert.equal(first.statusCode, 200, first.body);
    assert.ok(!first.body.includes(PASSWORD) && !first.body.includes(encodeURIComponent(PASSWORD)));
    const body = first.json();
    assert.match(body.updated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    assert.deepEqual(
      { ...body, updated_at: 'x' },
      {
        from_address: 'news@example.org',
        from_name: 'Garden Club',
        reply_to: 'help@example.org',
        organisation_name: 'The Garden Club',
        logo: null,
        smtp_servers: [{ url: 'smtp://mailer@relay.example.org:587?tls=required', has_password: true }],
        subscriber_html_default: false,
        public_url: 'http://localhost:8080',
        from_environment: {},
        updated_at: 'x',
        updated_by: adminId,
      },
    );
    assert.deepEqual(t.ctx.settings.current.smtpUrls, [`smtp://mailer:${PASSWORD}@relay.example.org:587?tls=required`]);

    // The console sends the servers back without passwords: the stored one stays; a second server is added.
    const again = await patch({ smtp_servers: [{ url: 'smtp://mailer@relay.example.org:587?tls=required' }, { url: t.smtp.url }] });
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(again.json().smtp_servers, [
      { url: 'smtp://mailer@relay.example.org:587?tls=required', has_password: true },
      { url: t.smtp.url, has_password: false },
    ]);
    assert.equal(t.ctx.settings.current.smtpUrls[0], `smtp://mailer:${PASSWORD}@relay.example.org:587?tls=required`);
    assert.ok(!(await get()).body.includes(PASSWORD));

    // "" removes it.
    const cleared = await patch({ smtp_servers: [{ url: 'smtp://mailer@relay.example.org:587?tls=required', password: '' }] });
    assert.deepEqual(cleared.json().smtp_servers, [{ url: 'smtp://mailer@relay.example.org:587?tls=required', has_password: false }]);

    // Back to the sink for the tests below.
    assert.equal((await patch({ smtp_servers: [{ url: t.smtp.url }] })).statusCode, 200);
  });

  test('bad values: 422 naming each field, and nothing of the request is written', async () => {
    const before = (await get()).json();
    const cases: [object, Record<string, string[]>][] = [
      [{ from_address: 'not an address', organisation_name: 'Changed' }, { from_address: ['This value is not a valid email address.'] }],
      [{ reply_to: 'nope' }, { reply_to: ['This value is not a valid email address.'] }],
      [{ from_name: 'x'.repeat(201) }, { from_name: ['This value is too long. It should have 200 characters or less.'] }],
      [{ subscriber_html_default: 'yes' }, { subscriber_html_default: ['This value should be of type boolean.'] }],
      [
        { smtp_servers: [{ url: 'http://relay.example.org' }] },
        { 'smtp_servers[0].url': ['An SMTP server is smtp://host:port or smtps://host:port, optionally with user@, ?tls=off|required and ?pool=N.'] },
      ],
      [
        { smtp_servers: [{ url: 'smtp://relay.example.org?tls=maybe' }], organisation_name: 'Changed' },
        { 'smtp_servers[0].url': ['?tls= takes off or required, got "maybe".'] },
      ],
      [{ smtp_servers: [{ url: 'smtp://relay.example.org:99999' }] }, { 'smtp_servers[0].url': ['This is not a URL.'] }],
    ];
    for (const [payload, errors] of cases) {
      const res = await patch(payload);
      assert.equal(res.statusCode, 422, JSON.stringify(payload));
      assert.deepEqual(res.json(), { message: 'Validation failed', errors }, JSON.stringify(payload));
    }
    assert.deepEqual((await get()).json(), before);
  });

  test('system mail goes out with the From and Reply-To set here, through the server set here (no restart)', async () => {
    const second = await startSmtpSink();
    try {
      assert.equal(
        (
          await patch({
            from_address: 'club@example.org',
            from_name: 'Garden Club',
            reply_to: 'answers@example.org',
            smtp_servers: [{ url: second.url }],
          })
        ).statusCode,
        200,
      );
      await t.ctx.mailer.send({ to: 'reader@example.com', subject: 'Hello', text: 'Hi' });
      const [mail] = await second.waitFor(1);
      assert.equal(mail!.parsed.from?.text, '"Garden Club" <club@example.org>');
      assert.equal(mail!.parsed.replyTo?.text, 'answers@example.org');
    } finally {
      await patch({ smtp_servers: [{ url: t.smtp.url }] });
      await second.close();
    }
  });
});

describe('settings an environment variable sets', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  before(async () => {
    // startTestApp sets SMTP_URL; MAIL_FROM and PUBLIC_URL are set here too.
    t = await startTestApp({ settingsFromEnv: ['MAIL_FROM', 'SMTP_URL', 'PUBLIC_URL'] });
    headers = (await t.adminWithSession()).headers;
  });
  after(async () => t?.close());

  test('are shown with the variable’s name, and a change is refused naming the field and the variable', async () => {
    const view = (await t.inject({ method: 'GET', url: '/api/v2/settings', headers })).json();
    assert.deepEqual(view.from_environment, {
      from_address: 'MAIL_FROM',
      from_name: 'MAIL_FROM',
      smtp_servers: 'SMTP_URL',
      public_url: 'PUBLIC_URL',
    });
    const res = await t.inject({
      method: 'PATCH',
      url: '/api/v2/settings',
      headers,
      payload: { from_address: 'x@example.org', smtp_servers: [], organisation_name: 'Club' },
    });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), {
      message: 'Validation failed',
      errors: {
        from_address: ['Set by the environment variable MAIL_FROM, which wins over the console: change it there.'],
        smtp_servers: ['Set by the environment variable SMTP_URL, which wins over the console: change it there.'],
      },
    });
    assert.equal((await t.inject({ method: 'GET', url: '/api/v2/settings', headers })).json().organisation_name, '');
  });

  test('a value stored before the variable was set does not apply', async () => {
    await t.inject({ method: 'PATCH', url: '/api/v2/settings', headers, payload: { organisation_name: 'Club' } });
    await t.db.execute(
      // As if stored by a process started without MAIL_FROM.
      (await import('drizzle-orm'))
        .sql`insert into settings (key, value) values ('from_address', '"stored@example.org"') on conflict (key) do update set value = excluded.value, version = nextval(pg_get_serial_sequence('settings', 'version'))`,
    );
    await t.ctx.settings.refresh();
    assert.equal(t.ctx.settings.current.fromAddress, 'mailroom@localhost');
  });
});

describe('a change made through one process applies in another', () => {
  let t: TestApp;
  let other: FastifyInstance;
  let dataDir: string;
  before(async () => {
    t = await startTestApp({ settingsFromEnv: [], settingsPollMs: 100 });
    dataDir = mkdtempSync(join(tmpdir(), 'mailroom-settings-'));
    // PostgreSQL: a second service with a connection pool of its own, as another process would have. PGlite: one
    // database handle, but a second service with its own settings in memory.
    const config = loadConfig(
      { LOG_LEVEL: 'silent', DATA_DIR: dataDir, SMTP_URL: t.smtp.url, SEND_WORKER: 'off', DATABASE_URL: t.databaseUrl },
      { settingsFromEnv: [], settingsPollMs: 100 },
    );
    other = await buildApp({ config, ...(t.databaseUrl ? {} : { database: t.database }), migrate: false });
    await other.ready();
  });
  after(async () => {
    if (t?.databaseUrl) await other?.close();
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('the other process mails through the new server with the new From within the poll interval', async () => {
    const second = await startSmtpSink();
    try {
      const { headers } = await t.adminWithSession();
      const res = await t.inject({
        method: 'PATCH',
        url: '/api/v2/settings',
        headers,
        payload: { from_address: 'club@example.org', organisation_name: 'Garden Club', smtp_servers: [{ url: second.url }] },
      });
      assert.equal(res.statusCode, 200, res.body);
      const deadline = Date.now() + 5000;
      while (other.ctx.settings.current.organisationName !== 'Garden Club' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const seen = await other.inject({ method: 'GET', url: '/api/v2/settings', headers });
      assert.equal(seen.json().organisation_name, 'Garden Club');
      await other.ctx.mailer.send({ to: 'reader@example.com', subject: 'From the other process', text: 'Hi' });
      const [mail] = await second.waitFor(1);
      assert.equal(mail!.parsed.from?.text, '"Mailroom" <club@example.org>');
      assert.equal(t.smtp.messages.length, 0);
    } finally {
      await second.close();
    }
  });
});
