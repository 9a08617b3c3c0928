import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { seal } from '../src/public/sealed-token.js';
import { linkTokenSigner } from '../src/sending/compose/tokens.js';
import { forwardUrlMaker } from '../src/sending/forward-link.js';
import { preferencesUrl } from '../src/sending/preferences-link.js';
import { confirmationLink } from '../src/subscription/index.js';
import { joinLink } from '../src/subscription/signup.mail.js';
import { unsubscribeUrl } from '../src/subscription/unsubscribe-token.js';
import { openTestDatabase } from './db.js';
import { createAdmin, createCampaign, createDelivery, createLink, createList, createSubscriber, subscribe } from './factories.js';
import { createPage } from './public/fixtures.js';
import { startSmtpSink, type SmtpSink } from './smtp-sink.js';

/*
 * Issue 23: preference-centre, address-change, forward and resubscribe tokens were written to the request log. The
 * service runs at `trace` with its own log configuration, every public page and token-bearing path is asked for (with
 * valid tokens, so the handlers run their whole course, and with a mangled one), and the whole log is searched for
 * every credential and uid it saw: none may appear.
 */

let app: FastifyInstance;
let smtp: SmtpSink;
let drop: () => Promise<void>;
let dataDir: string;
const lines: string[] = [];

before(async () => {
  const testDb = await openTestDatabase();
  drop = testDb.drop;
  smtp = await startSmtpSink();
  dataDir = mkdtempSync(join(tmpdir(), 'mailroom-log-'));
  const config = loadConfig({ LOG_LEVEL: 'trace', DATA_DIR: dataDir, SMTP_URL: smtp.url, SEND_WORKER: 'off', PGLITE_MAX_WAIT_MS: '0' });
  app = await buildApp({ config, database: testDb.database, migrate: false, logStream: { write: (line: string) => void lines.push(line) } });
  await app.ready();
});
after(async () => {
  await app.close();
  await drop();
  await smtp.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('no credential of any kind in the log', () => {
  test('every public page and token-bearing path, with valid and mangled tokens: no token, uid, key or password logged', async () => {
    const { ctx } = app;
    const secret = ctx.secrets.linkToken;
    const password = 'a password nobody logs';
    const admin = await createAdmin(ctx.db, { loginName: 'logged.admin', password });
    const list = await createList(ctx.db, { isPublic: true });
    const subscriber = await createSubscriber(ctx.db, { email: 'private.person@example.com', confirmed: true });
    await subscribe(ctx.db, list.id, subscriber.id);
    const campaign = await createCampaign(ctx.db, { status: 'sent', body: '<p>Hi</p>' });
    await createDelivery(ctx.db, campaign.id, subscriber.id);
    const link = await createLink(ctx.db, campaign.id, 'https://example.com/landing');
    const page = await createPage(ctx.db, 'Join', { lists: String(list.id) });
    const uid = subscriber.uniqueId;

    const path = (url: string) => {
      const u = new URL(url);
      return u.pathname + u.search;
    };
    const prefs = path(preferencesUrl(ctx, subscriber));
    const unsubscribe = path(unsubscribeUrl(ctx, uid, campaign.id));
    const forward = path(forwardUrlMaker(ctx, campaign.id)(uid));
    const confirm = path(confirmationLink(ctx, uid));
    const join_ = path(joinLink(ctx, subscriber, list));
    const emailChange = `/preferences/email/${seal(secret, 'email-change', [uid, 'new.address@example.com'], 86_400)}`;
    const resubscribe = `/api/v2/unsubscribe/resubscribe/${seal(secret, 'resubscribe', [uid, String(list.id)], 86_400)}`;
    const click = `/lt/${linkTokenSigner(secret)(link.id, subscriber.id)}`;
    const resetToken = 'f'.repeat(32);

    const inject = (options: InjectOptions) => app.inject({ remoteAddress: '192.0.2.44', ...options });
    const form = (url: string, fields: Record<string, string>) =>
      inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(fields).toString(),
      });

    // The administrator's credentials: the password in the login body, the key in each header it may ride in.
    const failed = await inject({
      method: 'POST',
      url: '/api/v2/sessions',
      payload: { login_name: 'logged.admin', password: 'a wrong password here' },
    });
    assert.equal(failed.statusCode, 401);
    const login = await inject({ method: 'POST', url: '/api/v2/sessions', payload: { login_name: 'logged.admin', password } });
    assert.equal(login.statusCode, 201);
    const key: string = login.json().key;
    for (const headers of [
      { 'php-auth-pw': key },
      { authorization: `Bearer ${key}` },
      { authorization: `Basic ${Buffer.from(`logged.admin:${key}`).toString('base64')}` },
    ]) {
      assert.equal((await inject({ method: 'GET', url: '/api/v2/sessions/me', headers })).statusCode, 200);
    }
    await inject({ method: 'PUT', url: '/api/v2/sessions/me', headers: { 'php-auth-pw': key }, payload: { current_password: password } });
    await inject({ method: 'GET', url: `/api/v2/administrators/${admin.id}`, headers: { 'php-auth-pw': `${key}x` } });

    // Public pages and every token-bearing path, each with its valid token (and through both prefixes where served).
    for (const url of ['/', '/admin/', `/subscribe/${page.id}`, prefs, emailChange, forward, unsubscribe, confirm, join_, click, '/password-reset']) {
      await inject({ method: 'GET', url });
    }
    await form(prefs, { action: 'email', email: 'new.address@example.com' });
    await form(emailChange, {});
    await form(forward, { emails: 'friend@example.com', note: 'hi' });
    await form(unsubscribe, { reason: 'too many' });
    await form(resubscribe, {});
    await inject({
      method: 'POST',
      url: unsubscribe.replace('/api/v2/unsubscribe/', '/api/v2/unsubscribe/') + '?one-click',
      payload: 'List-Unsubscribe=One-Click',
    });
    await inject({ method: 'GET', url: `/api/v2/link-track?id=${click.slice(4)}` });
    for (const prefix of ['', '/api/v2']) {
      await inject({ method: 'GET', url: `${prefix}/t/open.gif?u=${uid}&m=${campaign.id}` });
      await inject({ method: 'GET', url: `${prefix}/attachments/download/1?uid=${uid}` });
    }
    await inject({ method: 'POST', url: '/api/v2/password-reset/validate', payload: { token: resetToken } });
    await inject({ method: 'POST', url: '/api/v2/password-reset/reset', payload: { token: resetToken, new_password: 'a new password to hide' } });
    await inject({ method: 'GET', url: `/password-reset?token=${resetToken}` });
    // Mangled: a token with a path segment after it (no route), and tokens where ids are expected.
    await inject({ method: 'GET', url: `${prefs}/more` });
    await inject({ method: 'GET', url: `/api/v2/lists/${uid}` });

    const log = lines.join('');
    if (process.env.SHOW_LOG) console.error(log);
    assert.ok(lines.length > 30, `the log was captured (${lines.length} lines)`);
    const secrets: Record<string, string> = {
      uid,
      key,
      password,
      'wrong password': 'a wrong password here',
      'new password': 'a new password to hide',
      'reset token': resetToken,
      'subscriber address': 'private.person@example.com',
      'new address': 'new.address@example.com',
    };
    for (const [name, url] of Object.entries({ prefs, emailChange, forward, unsubscribe, confirm, join_, resubscribe, click })) {
      const token = /([A-Za-z0-9_-]{16,})(?:\?|$)/.exec(url.split('?')[0]!)?.[1] ?? /token=([^&]+)/.exec(url)?.[1];
      if (token) secrets[`${name} token`] = token;
    }
    assert.ok(Object.keys(secrets).length >= 15, Object.keys(secrets).join(', '));
    for (const [name, value] of Object.entries(secrets)) {
      assert.ok(!log.includes(value), `${name} (${value}) is in the log:\n${lines.filter((l) => l.includes(value)).join('')}`);
    }
    assert.match(log, /"url":"\/preferences\/:token"/, 'request lines name the route, its token as `:token`');
    assert.match(log, /"url":"\/api\/v2\/administrators\/\d+"/, 'integer ids are kept');
  });
});
