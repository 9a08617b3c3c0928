import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { messageIdSigner } from '../../src/sending/compose/tokens.js';
import { startTestApp, type TestApp } from '../helper.js';
import { deliveryRows, listWithMembers, parkOtherCampaigns, sendableCampaign, withWorker } from './send-fixtures.js';
import { startServer, type TestServer } from './smtp-servers.js';

/*
 * A delivery keeps one Message-ID across its attempts (issue 23): a relay that queued a message and died before
 * confirming it gets the retry with the same Message-ID, so receivers can merge the two copies.
 */

let t: TestApp;
let relay: TestServer;
let dropped = 0;
before(async () => {
  relay = await startServer({
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        relay.received.push({ from: '', to: [], raw: Buffer.concat(chunks), secure: false, user: undefined });
        if (dropped++ === 0) {
          // The whole message is in, and the connection goes before the reply: the sender cannot know it was queued.
          for (const socket of relay.sockets) socket.destroy();
          return;
        }
        callback();
      });
    },
  });
  t = await startTestApp({ smtpUrl: `smtp://127.0.0.1:${relay.port}/?tls=off` });
});
after(() => t.close());

test("the retry after a connection lost before the reply to the data carries the first attempt's Message-ID", async () => {
  const { list } = await listWithMembers(t.db, 1);
  const campaign = await sendableCampaign(t.db, [list.id]);
  await parkOtherCampaigns(t.db, campaign.id);
  const { headers } = await t.adminWithSession();
  assert.equal((await t.inject({ method: 'POST', url: `/api/v2/campaigns/${campaign.id}/send`, headers })).statusCode, 200);
  await withWorker(t.ctx, {}, async (worker) => {
    for (let pass = 0; pass < 5 && relay.received.length < 2; pass++) await worker.runOnce();
  });
  assert.equal(relay.received.length, 2, 'the first attempt and its retry');
  const [first, retry] = await Promise.all(relay.received.map((r) => simpleParser(r.raw)));
  assert.ok(first!.messageId);
  assert.equal(retry!.messageId, first!.messageId);
  const [row] = await deliveryRows(t.db, campaign.id);
  assert.equal(row!.status, 'sent');
  assert.equal(row!.attempts, 2);
  assert.equal(row!.messageId, first!.messageId);
});

test('the Message-ID token is HMAC-SHA256 of the delivery id under the installation secret (128 bits, hex)', () => {
  const sign = messageIdSigner('a secret of this installation');
  for (const id of [1, 2, 0xffffffff, 2 ** 40 + 7]) {
    const input = Buffer.alloc(12);
    input.write('MsgI', 0, 'latin1');
    input.writeBigUInt64BE(BigInt(id), 4);
    const expected = createHmac('sha256', 'a secret of this installation').update(input).digest('hex').slice(0, 32);
    assert.equal(sign(id), expected);
  }
  assert.notEqual(messageIdSigner('another secret')(1), sign(1));
});
