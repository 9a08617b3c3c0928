import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { consecutiveWalk, decideBounce, isCertain, ruleEffects, type BounceFacts, type BounceMatch } from '../../src/messaging/bounce-decision.js';

/*
 * The bounce decision (issue 16) without a database: every branch of decideBounce — status, counting, each rule
 * action, the automatic blacklisting, the thresholds, history and the answer's texts — and the certainty rules of
 * issue 14 (VERP and returned headers act; the failed address or header lines in the text alone do not).
 */

const ID = 41;
const thresholds = { unconfirm: 3, blacklist: 5 };
const soft: BounceFacts = { kind: 'soft', label: 'Soft bounce 4.2.2', description: 'Soft bounce 4.2.2: mailbox full', rule: null, source: 'http' };
const hard: BounceFacts = { ...soft, kind: 'hard', label: 'Hard bounce 5.1.1', description: 'Hard bounce 5.1.1: user unknown' };
const complaint: BounceFacts = { ...soft, kind: 'complaint', label: 'Complaint (abuse)', description: 'Complaint (feedback type abuse)' };
const delivered: BounceFacts = {
  ...soft,
  kind: null,
  label: 'Delivery report (delivered)',
  description: 'Delivery report (delivered), not a failure',
};
const withRule = (facts: BounceFacts, action: string): BounceFacts => ({ ...facts, rule: { id: 7, action } });

const subscriber = { id: 9, email: 'ann@example.com', confirmed: true, blacklisted: false, bounceCount: 0, listed: false };
const certain: BounceMatch = {
  matchedBy: 'delivery',
  proven: true,
  deliveryId: 100,
  campaignId: 3,
  subscriber,
  headersIn: 'part',
  failedAddressMatches: true,
  deliverySent: true,
  consecutive: 1,
};
const about = (label: string) => `${label} (campaign 3, bounce ${ID})`;
const actions = (d: ReturnType<typeof decideBounce>) => d.actions.map((a) => a.action);

describe('decideBounce: a certain match', () => {
  test('a soft bounce below the thresholds is counted, nothing else', () => {
    const d = decideBounce(ID, soft, certain, thresholds);
    assert.deepEqual(d, {
      status: 'bounced list message',
      store: true,
      campaignId: 3,
      subscriberId: 9,
      deliveryId: 100,
      counted: true,
      subscriber: { id: 9, confirmed: true, blacklisted: false, changed: false },
      deleteSubscriber: null,
      blacklist: [],
      history: [{ summary: 'Bounce', detail: `Soft bounce 4.2.2: mailbox full (campaign 3, bounce ${ID})` }],
      systemInfo: 'Bounce processing (HTTP)',
      increment: { campaignId: 3, ruleId: null },
      actions: [{ action: 'counted', reason: `${about('Soft bounce 4.2.2')}: bounce count + 1` }],
    });
  });

  test('a hard bounce blacklists at once; an already blacklisted subscriber is not blacklisted again', () => {
    const d = decideBounce(ID, hard, certain, thresholds);
    assert.deepEqual(d.blacklist, [{ email: 'ann@example.com', reason: about('Hard bounce 5.1.1') }]);
    assert.deepEqual(d.actions[1], { action: 'blacklisted', reason: about('Hard bounce 5.1.1') });
    assert.deepEqual(d.subscriber, { id: 9, confirmed: true, blacklisted: true, changed: true });
    assert.deepEqual(
      d.history.map((h) => h.summary),
      ['Bounce', 'Blacklisted'],
    );
    const again = decideBounce(ID, hard, { ...certain, subscriber: { ...subscriber, blacklisted: true } }, thresholds);
    assert.deepEqual(actions(again), ['counted']);
    assert.deepEqual(again.blacklist, []);
  });

  test('a complaint blacklists, is not counted, and its status says complaint', () => {
    const d = decideBounce(ID, complaint, certain, thresholds);
    assert.equal(d.status, 'complaint');
    assert.equal(d.counted, false);
    assert.deepEqual(actions(d), ['blacklisted']);
    assert.equal(d.history[0]!.summary, 'Complaint');
    assert.equal(d.increment, null);
  });

  test('a success report changes nothing and is not counted', () => {
    const d = decideBounce(ID, delivered, certain, thresholds);
    assert.equal(d.counted, false);
    assert.deepEqual(d.actions, []);
    assert.deepEqual(d.subscriber, { id: 9, confirmed: true, blacklisted: false, changed: false });
    assert.equal(d.history.length, 1);
  });

  test('thresholds: unconfirm at 3 (only a confirmed subscriber), blacklist at 5, 0 turns one off', () => {
    const at = (n: number, s = subscriber, t = thresholds) => decideBounce(ID, soft, { ...certain, subscriber: s, consecutive: n }, t);
    assert.deepEqual(at(2).actions.length, 1);
    assert.deepEqual(at(3).actions[1], { action: 'unconfirmed', reason: '3 consecutive bounces, threshold reached' });
    assert.deepEqual(
      at(3).history.map((h) => h.summary),
      ['Bounce', 'Auto unconfirmed'],
    );
    assert.deepEqual(actions(at(4, { ...subscriber, confirmed: false })), ['counted']);
    assert.deepEqual(at(5).actions[1], { action: 'blacklisted', reason: '5 consecutive bounces, threshold reached' });
    assert.deepEqual(at(5).blacklist, [{ email: 'ann@example.com', reason: '5 consecutive bounces, threshold reached' }]);
    assert.deepEqual(actions(at(9, subscriber, { unconfirm: 0, blacklist: 0 })), ['counted']);
  });

  test('a matched subscriber without campaign is a "bounced subscriber"; nothing matched is "unidentified"', () => {
    assert.equal(decideBounce(ID, soft, { ...certain, campaignId: null }, thresholds).status, 'bounced subscriber');
    const none: BounceMatch = { ...certain, matchedBy: null, deliveryId: null, campaignId: null, subscriber: null };
    const d = decideBounce(ID, hard, none, thresholds);
    assert.equal(d.status, 'unidentified');
    assert.equal(d.counted, false);
    assert.deepEqual(d.actions, []);
    assert.deepEqual(d.history, []);
    assert.equal(d.subscriber, null);
    assert.equal(d.increment, null);
  });

  test('mailbox bounces say so in history', () => {
    assert.equal(decideBounce(ID, { ...soft, source: 'mailbox' }, certain, thresholds).systemInfo, 'Bounce processing (mailbox)');
  });
});

describe('decideBounce: rules', () => {
  const because = (action: string) => `Bounce rule 7 (${action}) matched ${about('Soft bounce 4.2.2')}`;

  test('blacklistuser / blacklistemail: blacklisted with the rule as reason; the rule is counted', () => {
    for (const action of ['blacklistuser', 'blacklistemail']) {
      const d = decideBounce(ID, withRule(soft, action), certain, thresholds);
      assert.deepEqual(d.actions, [
        { action: 'counted', reason: `${about('Soft bounce 4.2.2')}: bounce count + 1` },
        { action: 'blacklisted', reason: because(action) },
      ]);
      assert.deepEqual(d.increment, { campaignId: 3, ruleId: 7 });
      assert.deepEqual(d.history[1], { summary: 'Blacklisted', detail: because(action) });
    }
  });

  test('a rule blacklisting an address already listed and flagged notes nothing, but a listed one not flagged is noted', () => {
    const both = decideBounce(
      ID,
      withRule(soft, 'blacklistuser'),
      { ...certain, subscriber: { ...subscriber, blacklisted: true, listed: true } },
      thresholds,
    );
    assert.deepEqual(actions(both), ['counted']);
    const listedOnly = decideBounce(ID, withRule(soft, 'blacklistuser'), { ...certain, subscriber: { ...subscriber, listed: true } }, thresholds);
    assert.deepEqual(actions(listedOnly), ['counted', 'blacklisted']);
  });

  test('…anddeletebounce: the bounce is not stored', () => {
    const d = decideBounce(ID, withRule(soft, 'blacklistuseranddeletebounce'), certain, thresholds);
    assert.equal(d.store, false);
    assert.deepEqual(actions(d), ['counted', 'blacklisted', 'bounce_deleted']);
    assert.deepEqual(d.actions[2], { action: 'bounce_deleted', reason: 'Bounce rule 7 (blacklistuseranddeletebounce)' });
  });

  test('unconfirmuser: unconfirmed (not when unconfirmed already)', () => {
    const d = decideBounce(ID, withRule(soft, 'unconfirmuser'), certain, thresholds);
    assert.deepEqual(d.actions[1], { action: 'unconfirmed', reason: because('unconfirmuser') });
    assert.deepEqual(d.subscriber, { id: 9, confirmed: false, blacklisted: false, changed: true });
    const already = decideBounce(ID, withRule(soft, 'unconfirmuser'), { ...certain, subscriber: { ...subscriber, confirmed: false } }, thresholds);
    assert.deepEqual(actions(already), ['counted']);
  });

  test('deleteuser: the subscriber is deleted, the bounce kept without subscriber, counted for the campaign', () => {
    const d = decideBounce(ID, withRule(soft, 'deleteuser'), certain, thresholds);
    assert.equal(d.deleteSubscriber, 9);
    assert.equal(d.subscriberId, null);
    assert.equal(d.subscriber, null);
    assert.deepEqual(d.history, []);
    assert.deepEqual(d.actions, [{ action: 'subscriber_deleted', reason: because('deleteuser') }]);
    assert.deepEqual(d.increment, { campaignId: 3, ruleId: 7 });
    assert.equal(decideBounce(ID, withRule(soft, 'deleteuserandbounce'), certain, thresholds).store, false);
  });

  test('deletebounce: no bounce, not counted, nothing automatic even for a hard bounce', () => {
    const d = decideBounce(ID, withRule(hard, 'deletebounce'), certain, thresholds);
    assert.equal(d.counted, false);
    assert.equal(d.store, false);
    assert.deepEqual(actions(d), ['bounce_deleted']);
    assert.deepEqual(d.increment, { campaignId: null, ruleId: 7 });
  });

  test('decreasecountconfirmuseranddeletebounce: confirms an unconfirmed subscriber, not counted', () => {
    const action = 'decreasecountconfirmuseranddeletebounce';
    const d = decideBounce(ID, withRule(soft, action), { ...certain, subscriber: { ...subscriber, confirmed: false } }, thresholds);
    assert.deepEqual(actions(d), ['confirmed', 'bounce_deleted']);
    assert.deepEqual(d.subscriber, { id: 9, confirmed: true, blacklisted: false, changed: true });
    assert.equal(d.counted, false);
  });

  test('ruleEffects reads each action of reference §5.16', () => {
    assert.deepEqual(ruleEffects('blacklistemailanddeletebounce'), {
      blacklist: true,
      unconfirm: false,
      confirm: false,
      deleteSubscriber: false,
      deleteBounce: true,
      noBounce: false,
    });
    assert.equal(ruleEffects('deleteuserandbounce').deleteBounce, true);
    assert.equal(ruleEffects('unconfirmuseranddeletebounce').unconfirm, true);
  });
});

describe('certainty (issue 14): only VERP or returned headers act', () => {
  const byText: BounceMatch = { ...certain, headersIn: 'text' };
  const byAddress: BounceMatch = { ...certain, matchedBy: 'recipient', deliveryId: null, campaignId: null, headersIn: null };

  test('certain: a VERP token, or returned headers in a message or header part (the failed address may differ)', () => {
    assert.equal(isCertain({ ...certain, matchedBy: 'verp', headersIn: null, failedAddressMatches: false }), true);
    assert.equal(isCertain({ ...certain, failedAddressMatches: false }), true);
    assert.equal(isCertain({ ...certain, matchedBy: 'message_id' }), true);
    assert.equal(isCertain(byText), false);
    assert.equal(isCertain(byAddress), false);
    // Issue 23: a returned part with only the sequential delivery number proves nothing.
    assert.equal(isCertain({ ...certain, proven: false }), false);
    assert.equal(isCertain({ ...certain, subscriber: null }), false);
  });

  test('headers quoted in the text, naming a delivery really sent to the failed address: counted, nothing done', () => {
    const d = decideBounce(ID, hard, { ...byText, consecutive: 9 }, thresholds);
    assert.equal(d.counted, true);
    assert.deepEqual(actions(d), ['counted']);
    assert.deepEqual(d.blacklist, []);
    assert.deepEqual(d.subscriber, { id: 9, confirmed: true, blacklisted: false, changed: false });
    assert.equal(d.deliveryId, 100);
    assert.deepEqual(d.history, [
      {
        summary: 'Bounce',
        detail: `Hard bounce 5.1.1: user unknown (campaign 3, bounce ${ID}); matched only by headers quoted in its text, so nothing was done`,
      },
    ]);
  });

  test('headers quoted in the text, the delivery not sent to that address (or not sent): recorded, not counted', () => {
    for (const match of [
      { ...byText, failedAddressMatches: false },
      { ...byText, failedAddressMatches: null },
      { ...byText, deliverySent: false },
    ]) {
      const d = decideBounce(ID, soft, match, thresholds);
      assert.equal(d.counted, false);
      assert.deepEqual(d.actions, []);
      assert.equal(d.store, true);
      // Kept out of the delivery's consecutive run.
      assert.equal(d.deliveryId, null);
      assert.equal(d.increment, null);
    }
  });

  test('a returned part with only a delivery number (issue 23): counted when sent to that address, never acted on', () => {
    for (const facts of [hard, complaint, withRule(soft, 'blacklistuser'), withRule(soft, 'deleteuser')]) {
      const d = decideBounce(ID, facts, { ...certain, proven: false, consecutive: 9 }, thresholds);
      assert.deepEqual(d.blacklist, []);
      assert.equal(d.deleteSubscriber, null);
      assert.deepEqual(d.subscriber, { id: 9, confirmed: true, blacklisted: false, changed: false });
    }
    const d = decideBounce(ID, hard, { ...certain, proven: false }, thresholds);
    assert.deepEqual(actions(d), ['counted']);
    assert.match(d.history[0]!.detail, /matched only by a delivery number without the subscriber uid or Message-ID, so nothing was done$/);
  });

  test('only the failed address: recorded as a bounced subscriber, never counted, never blacklisted, even by a rule', () => {
    for (const facts of [hard, complaint, withRule(soft, 'blacklistemail'), withRule(soft, 'deleteuser'), withRule(soft, 'unconfirmuser')]) {
      const d = decideBounce(ID, facts, byAddress, thresholds);
      assert.equal(d.counted, false);
      assert.deepEqual(
        d.actions.filter((a) => a.action !== 'bounce_deleted'),
        [],
      );
      assert.deepEqual(d.blacklist, []);
      assert.equal(d.deleteSubscriber, null);
      assert.deepEqual(d.subscriber, { id: 9, confirmed: true, blacklisted: false, changed: false });
    }
    assert.match(decideBounce(ID, hard, byAddress, thresholds).history[0]!.detail, /matched only by the failed address, so nothing was done$/);
    // The rule still counts its match.
    assert.deepEqual(decideBounce(ID, withRule(soft, 'blacklistemail'), byAddress, thresholds).increment, { campaignId: null, ruleId: 7 });
  });
});

describe('consecutiveWalk', () => {
  test('only for a counted kind that is not blacklisted at once, as far as the larger threshold', () => {
    assert.equal(consecutiveWalk(soft, thresholds), 5);
    assert.equal(consecutiveWalk({ ...soft, kind: 'unknown' }, { unconfirm: 7, blacklist: 0 }), 7);
    assert.equal(consecutiveWalk(hard, thresholds), 0);
    assert.equal(consecutiveWalk(complaint, thresholds), 0);
    assert.equal(consecutiveWalk(delivered, thresholds), 0);
    assert.equal(consecutiveWalk(withRule(soft, 'deletebounce'), thresholds), 0);
  });
});
