import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  flagScannerBursts,
  MachineReason,
  requesterMachineReason,
  SCANNER_WINDOW_MS,
  timingMachineReason,
  type ScannableClick,
} from '../../src/tracking/machine-detection.js';

/*
 * The machine-detection rules without a database (issue 16: they exist once, in TypeScript; the flush's statements
 * only fetch what they need). The HTTP-level behaviour is in click.test.ts and open-pixel.test.ts.
 */

const sent = new Date('2026-03-01T10:00:00.000Z');
const after = (ms: number) => new Date(sent.getTime() + ms);

describe('timing rule', () => {
  test('an event within the configured seconds of the sending is a machine’s, one a millisecond later is not', () => {
    const delivery = { sentAt: sent, status: 'sent' };
    assert.equal(timingMachineReason(after(0), delivery, 5), MachineReason.soonAfterDelivery);
    assert.equal(timingMachineReason(after(5000), delivery, 5), MachineReason.soonAfterDelivery);
    assert.equal(timingMachineReason(after(5001), delivery, 5), null);
  });

  test('a mail being sent right now (no sent_at, queued or sending) is sooner still; a failed one is not judged', () => {
    assert.equal(timingMachineReason(after(0), { sentAt: null, status: 'queued' }, 5), MachineReason.soonAfterDelivery);
    assert.equal(timingMachineReason(after(0), { sentAt: null, status: 'sending' }, 5), MachineReason.soonAfterDelivery);
    assert.equal(timingMachineReason(after(0), { sentAt: null, status: 'failed' }, 5), null);
  });

  test('zero seconds turns the rule off', () => {
    assert.equal(timingMachineReason(after(0), { sentAt: sent, status: 'sent' }, 0), null);
    assert.equal(timingMachineReason(after(0), { sentAt: null, status: 'sending' }, 0), null);
  });
});

describe('scanner pattern', () => {
  const click = (linkId: number, ms: number, subscriberId = 7, machineReason: string | null = null): ScannableClick => ({
    linkId,
    campaignId: 3,
    subscriberId,
    at: after(ms),
    machineReason,
  });

  test('clicks on two links of one mail within the window are both flagged, at the window’s edge too', () => {
    const batch = [click(1, 0), click(2, SCANNER_WINDOW_MS)];
    flagScannerBursts(batch, []);
    assert.deepEqual(
      batch.map((c) => c.machineReason),
      [MachineReason.linkScanner, MachineReason.linkScanner],
    );
  });

  test('the same link twice, another subscriber, or a gap beyond the window is a person', () => {
    const batch = [click(1, 0), click(1, 10), click(2, 20, 8), click(3, SCANNER_WINDOW_MS + 11)];
    flagScannerBursts(batch, []);
    assert.deepEqual(
      batch.map((c) => c.machineReason),
      [null, null, null, null],
    );
  });

  test('a partner among the others (buffered or stored clicks) flags the batch’s click, not the other', () => {
    const batch = [click(1, 0)];
    const stored = [{ linkId: 2, campaignId: 3, subscriberId: 7, at: after(-SCANNER_WINDOW_MS) }];
    flagScannerBursts(batch, stored);
    assert.equal(batch[0]!.machineReason, MachineReason.linkScanner);
  });

  test('a verdict already made (the requester’s) is kept', () => {
    const batch = [click(1, 0, 7, MachineReason.scannerUserAgent), click(2, 5)];
    flagScannerBursts(batch, []);
    assert.deepEqual(
      batch.map((c) => c.machineReason),
      [MachineReason.scannerUserAgent, MachineReason.linkScanner],
    );
  });
});

describe('requester rule', () => {
  test('Apple’s bare user agent or network, the image proxies and scanners are machines; a browser is not', () => {
    assert.equal(requesterMachineReason('Mozilla/5.0', '203.0.113.9'), MachineReason.applePrivacyProxy);
    assert.equal(requesterMachineReason('Mozilla/5.0 (Macintosh)', '::ffff:17.58.1.2'), MachineReason.applePrivacyProxy);
    assert.equal(requesterMachineReason('Mozilla/5.0 (via ggpht.com GoogleImageProxy)', null), MachineReason.googleImageProxy);
    assert.equal(requesterMachineReason('curl/8.5.0', null), MachineReason.scannerUserAgent);
    assert.equal(requesterMachineReason('Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0', '198.51.100.4'), null);
  });
});
