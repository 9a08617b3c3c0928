import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { loadConfig } from '../../src/config.js';
import { bounces } from '../../src/db/schema/index.js';
import { parseMailboxUrl, pollMailbox, startBounceMailbox } from '../../src/messaging/bounce-mailbox.js';
import { encodeVerpToken } from '../../src/mail/verp.js';
import type { AppContext } from '../../src/context.js';
import { createCampaign, createDelivery, createSubscriber } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { startImapServer, type TestImapServer } from '../imap-server.js';
import { dsn, originalMail } from './bounce-samples.js';

/*
 * The mailbox reader against an IMAP server on loopback (test/imap-server.ts): what it reads, where processed mail
 * goes, that nothing is ever deleted, and what happens when the server will not move or the login fails.
 */

const TOKEN = 'mailbox-test-token-0123456789';
let t: TestApp;
before(async () => {
  t = await startTestApp({ bounces: { ...loadConfig({}).bounces, inboundToken: TOKEN } });
});
after(() => t.close());

/** The app's context, reading the given server's INBOX. */
const contextFor = (server: TestImapServer, url = server.url): AppContext => ({
  ...t.ctx,
  config: { ...t.ctx.config, bounces: { ...t.ctx.config.bounces, mailboxUrl: url, pollSeconds: 1 } },
});

async function sentDelivery() {
  const subscriber = await createSubscriber(t.db, { confirmed: true });
  const campaign = await createCampaign(t.db, { status: 'sent' });
  const delivery = await createDelivery(t.db, campaign.id, subscriber.id);
  const original = await originalMail({ to: subscriber.email, deliveryId: delivery.id, campaignId: campaign.id, subscriberUid: subscriber.uniqueId });
  return { subscriber, campaign, delivery, original };
}

const folder = (server: TestImapServer, name: string) =>
  (server.folders.get(name) ?? []).map((m) => ({ flags: [...m.flags].sort(), subject: /^Subject: (.*)$/m.exec(m.source.toString('latin1'))?.[1] }));

/** Commands that would remove mail: none may ever be sent. */
const destructive = (server: TestImapServer) => server.transcript.filter((c) => /^(UID )?(EXPUNGE|DELETE)\b|\\Deleted/i.test(c));

describe('BOUNCE_MAILBOX_URL', () => {
  test('imap:// and imaps:// with an encoded user and password; INBOX by default', () => {
    assert.deepEqual(parseMailboxUrl('imaps://bounce%40example.com:p%3Ass%20w@imap.example.com/Bounces'), {
      host: 'imap.example.com',
      port: 993,
      secure: true,
      user: 'bounce@example.com',
      pass: 'p:ss w',
      folder: 'Bounces',
    });
    assert.deepEqual(parseMailboxUrl('imap://u:p@127.0.0.1:1143'), {
      host: '127.0.0.1',
      port: 1143,
      secure: false,
      user: 'u',
      pass: 'p',
      folder: 'INBOX',
    });
  });
});

describe('reading the bounce mailbox', () => {
  test('processes every message, moves it to Processed (created), flags what is no e-mail, deletes nothing', async () => {
    const server = await startImapServer();
    try {
      const hard = await sentDelivery();
      const soft = await sentDelivery();
      const viaHttp = await sentDelivery();
      server.add(dsn({ original: hard.original, recipient: hard.subscriber.email, status: '5.1.1' }));
      server.add(dsn({ original: soft.original, recipient: soft.subscriber.email, status: '4.2.2', fullMessage: true }));
      server.add(Buffer.from('this is not an e-mail at all\r\n'));
      // Already received over HTTP: the mailbox copy is a duplicate, processed once, still moved.
      const twice = dsn({ original: viaHttp.original, recipient: viaHttp.subscriber.email, status: '4.2.2' });
      const http = await t.inject({ method: 'POST', url: '/api/v2/bounces/inbound', headers: { 'x-bounce-token': TOKEN }, payload: twice });
      assert.equal(http.statusCode, 202);
      server.add(twice);

      const result = await pollMailbox(contextFor(server));
      assert.deepEqual(result, { fetched: 4, processed: 2, duplicates: 1, unreadable: 1, failed: 0, moved: 3, flagged: 0 });

      const [hardBounce] = await t.db.select().from(bounces).where(eq(bounces.subscriberId, hard.subscriber.id));
      assert.equal(hardBounce!.deliveryId, hard.delivery.id);
      assert.equal(hardBounce!.kind, 'hard');
      const state = await t.inject({
        method: 'GET',
        url: `/api/v2/subscribers/${hard.subscriber.id}`,
        headers: (await t.adminWithSession()).headers,
      });
      assert.equal(state.json().blacklisted, true);
      const history = await t.inject({
        method: 'GET',
        url: `/api/v2/subscribers/${hard.subscriber.id}/history`,
        headers: (await t.adminWithSession()).headers,
      });
      assert.deepEqual(
        history.json().items.map((h: { summary: string; system_info: string }) => [h.summary, h.system_info]),
        [
          ['Bounce', 'Bounce processing (mailbox)'],
          ['Blacklisted', 'Bounce processing (mailbox)'],
        ],
      );
      assert.equal((await t.db.select().from(bounces).where(eq(bounces.subscriberId, viaHttp.subscriber.id))).length, 1);

      assert.deepEqual(folder(server, 'INBOX'), [{ flags: ['$MailroomUnreadable', '\\Seen'], subject: undefined }]);
      assert.deepEqual(
        folder(server, 'Processed').map((m) => m.subject),
        ['Undelivered Mail Returned to Sender', 'Undelivered Mail Returned to Sender', 'Undelivered Mail Returned to Sender'],
      );
      assert.ok(server.transcript.includes('CREATE Processed'), server.transcript.join('\n'));
      assert.ok(
        server.transcript.some((c) => /^UID MOVE 1,2,4 "?Processed"?$/.test(c)),
        server.transcript.join('\n'),
      );
      assert.deepEqual(destructive(server), []);

      // Nothing left to do: the unreadable message is not read again.
      const again = await pollMailbox(contextFor(server));
      assert.deepEqual(again, { fetched: 0, processed: 0, duplicates: 0, unreadable: 0, failed: 0, moved: 0, flagged: 0 });
      assert.equal(server.transcript.filter((c) => c === 'CREATE Processed').length, 1);
    } finally {
      await server.close();
    }
  });

  test('a server that refuses to move: messages stay, flagged \\Seen and $MailroomProcessed, and are not read again', async () => {
    const server = await startImapServer({ refuseMove: true });
    try {
      const a = await sentDelivery();
      server.add(dsn({ original: a.original, recipient: a.subscriber.email, status: '4.2.2' }));
      const result = await pollMailbox(contextFor(server));
      assert.deepEqual(result, { fetched: 1, processed: 1, duplicates: 0, unreadable: 0, failed: 0, moved: 0, flagged: 1 });
      assert.deepEqual(folder(server, 'INBOX'), [{ flags: ['$MailroomProcessed', '\\Seen'], subject: 'Undelivered Mail Returned to Sender' }]);
      assert.deepEqual(folder(server, 'Processed'), []);
      assert.deepEqual(destructive(server), []);
      const again = await pollMailbox(contextFor(server));
      assert.equal(again.fetched, 0);
    } finally {
      await server.close();
    }
  });

  test('a message larger than BOUNCE_MAX_SIZE is read only that far (the report comes first)', async () => {
    const server = await startImapServer();
    try {
      const a = await sentDelivery();
      const big = Buffer.concat([dsn({ original: a.original, recipient: a.subscriber.email, status: '4.2.2' }), Buffer.alloc(4096, 'x')]);
      server.add(big);
      const ctx = contextFor(server);
      const small: AppContext = { ...ctx, config: { ...ctx.config, bounces: { ...ctx.config.bounces, maxSize: big.length - 2048 } } };
      const result = await pollMailbox(small);
      assert.equal(result.processed, 1);
      assert.ok(
        server.transcript.some((c) => c.includes(`BODY.PEEK[]<0.${big.length - 2048}>`)),
        server.transcript.join('\n'),
      );
      assert.equal((await t.db.select().from(bounces).where(eq(bounces.subscriberId, a.subscriber.id))).length, 1);
    } finally {
      await server.close();
    }
  });

  test('a wrong password fails the poll without touching anything', async () => {
    const server = await startImapServer();
    try {
      server.add(Buffer.from('From: a@example.com\r\n\r\nx\r\n'));
      const wrong = server.url.replace('secret%20pass', 'wrong');
      await assert.rejects(pollMailbox(contextFor(server, wrong)));
      assert.deepEqual(server.transcript, ['LOGIN ***']);
      assert.equal(folder(server, 'INBOX').length, 1);
    } finally {
      await server.close();
    }
  });
});

describe('reading the bounce mailbox: VERP', () => {
  test('a bounce delivered to a VERP address (Delivered-To) is matched by its token, the returned mail being foreign', async () => {
    const server = await startImapServer();
    try {
      const { subscriber, delivery } = await sentDelivery();
      const token = encodeVerpToken(t.ctx.secrets.linkToken, delivery.id)!;
      const original = await originalMail({ to: subscriber.email, messageId: 'lost.1@relay.example' });
      const bounce = dsn({ original, recipient: subscriber.email, status: '5.1.1' }).toString('latin1');
      server.add(Buffer.from(`Delivered-To: bounces+${token}@example.com\r\n${bounce}`, 'latin1'));
      const result = await pollMailbox(contextFor(server));
      assert.equal(result.processed, 1);
      const [stored] = await t.db.select().from(bounces).where(eq(bounces.subscriberId, subscriber.id));
      assert.equal(stored!.deliveryId, delivery.id);
      const state = await t.inject({ method: 'GET', url: `/api/v2/subscribers/${subscriber.id}`, headers: (await t.adminWithSession()).headers });
      assert.equal(state.json().blacklisted, true);
    } finally {
      await server.close();
    }
  });
});

describe('startBounceMailbox', () => {
  test('off without BOUNCE_MAILBOX_URL', () => {
    assert.equal(startBounceMailbox(t.ctx), null);
  });

  test('polls at once and then every BOUNCE_POLL_SECONDS, until stopped', async () => {
    const server = await startImapServer();
    const mailbox = startBounceMailbox(contextFor(server))!;
    try {
      const first = await sentDelivery();
      server.add(dsn({ original: first.original, recipient: first.subscriber.email, status: '4.2.2' }));
      const second = await sentDelivery();
      // Arrives while the poller waits: picked up by a later pass.
      setTimeout(() => server.add(dsn({ original: second.original, recipient: second.subscriber.email, status: '4.2.2' })), 300);
      const deadline = Date.now() + 15_000;
      while ((server.folders.get('Processed')?.length ?? 0) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.equal(server.folders.get('Processed')?.length, 2);
      const logins = server.transcript.filter((c) => c === 'LOGIN ***').length;
      assert.ok(logins >= 2, `logged in ${logins} times`);
    } finally {
      await mailbox.stop();
      await server.close();
    }
    // Stopped: no further logins.
    const count = server.transcript.length;
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(server.transcript.length, count);
  });
});
