import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { encodeQuotedPrintable, encodeWords, mimeParameter, SOFT_BREAK } from '../../src/sending/compose/mime.js';
import { linkTokenSigner, subscriberTokenSigner, unsubscribeTokenSigner } from '../../src/sending/compose/tokens.js';
import { decodePreferencesToken, encodePreferencesToken, PREFERENCES_DOMAIN, today } from '../../src/sending/preferences-link.js';
import { encodeUnsubscribeToken } from '../../src/subscription/unsubscribe-token.js';
import { encodeLinkToken } from '../../src/tracking/link-token.js';

/*
 * Pure functions of the composer whose every case HTTP tests cannot reach: the fast token signers must agree with
 * the reference implementations bit for bit, and the encoders must round-trip.
 */

/** A plain quoted-printable decoder (RFC 2045 §6.7), independent of the encoder under test. */
function decodeQuotedPrintable(text: string): string {
  const bytes = Buffer.from(text.replace(/=\r\n/g, '').replace(/\r\n/g, '\n'), 'latin1');
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x3d) {
      out.push(parseInt(bytes.subarray(i + 1, i + 3).toString('latin1'), 16));
      i += 2;
    } else out.push(bytes[i]!);
  }
  return Buffer.from(out).toString('utf8');
}

describe('token signers', () => {
  test('linkTokenSigner makes exactly the tokens of encodeLinkToken', () => {
    for (const secret of ['a'.repeat(64), 'short', 'x'.repeat(100), 'ß'.repeat(40), randomBytes(32).toString('hex')]) {
      const sign = linkTokenSigner(secret);
      const pairs = [
        [1, 1],
        [0, 0],
        [4_294_967_295, 4_294_967_295],
        [2_147_483_647, 2_147_483_648],
        ...Array.from({ length: 50 }, () => [randomBytes(4).readUInt32BE(0), randomBytes(4).readUInt32BE(0)]),
      ];
      for (const [linkId, subscriberId] of pairs) {
        assert.equal(sign(linkId!, subscriberId!), encodeLinkToken(secret, { linkId: linkId!, subscriberId: subscriberId! }));
      }
    }
  });

  test('unsubscribeTokenSigner makes exactly the tokens of encodeUnsubscribeToken; null for other unique ids', () => {
    for (const secret of ['a'.repeat(64), 'short', 'x'.repeat(100)]) {
      for (const campaignId of [1, 42, 2_147_483_647]) {
        const sign = unsubscribeTokenSigner(secret, campaignId);
        for (let i = 0; i < 20; i++) {
          const uniqueId = randomBytes(16).toString('hex');
          assert.equal(sign(uniqueId), encodeUnsubscribeToken(secret, { uniqueId, campaignId }));
        }
        assert.equal(sign('imported-id-7'), null);
        assert.equal(sign('ABCDEF0123456789ABCDEF0123456789'), null, 'upper-case hex is another unique id');
      }
    }
  });

  test('the preferences signer makes exactly the tokens of encodePreferencesToken; they decode to the subscriber', () => {
    const secret = 'p'.repeat(64);
    const day = today();
    const sign = subscriberTokenSigner(secret, PREFERENCES_DOMAIN, day);
    for (let i = 0; i < 20; i++) {
      const uniqueId = randomBytes(16).toString('hex');
      const token = sign(uniqueId)!;
      assert.equal(token, encodePreferencesToken(secret, uniqueId, day));
      assert.deepEqual(decodePreferencesToken(secret, token, 365), { uniqueId });
      // Another purpose's signature never passes: the unsubscribe token of the same numbers is not a preferences one.
      assert.equal(decodePreferencesToken(secret, encodeUnsubscribeToken(secret, { uniqueId, campaignId: day }), 365), null);
      assert.equal(decodePreferencesToken('q'.repeat(64), token, 365), null);
    }
    const old = encodePreferencesToken(secret, 'imported-7', day - 400);
    assert.equal(decodePreferencesToken(secret, old, 365), 'expired');
    assert.deepEqual(decodePreferencesToken(secret, old, 0), { uniqueId: 'imported-7' }, '0: links never expire');
  });
});

describe('quoted-printable', () => {
  test('round-trips any text (line ends as LF); lines within 76; no white space ends a line', () => {
    const samples = [
      '',
      'plain',
      'trailing space ',
      'tab\tand = sign',
      'Grüße, Zoë – 😀 and a very long line '.repeat(12),
      'line one\nline two  \n\n  indented\r\nwindows line',
      `${'x'.repeat(74)}é${'y'.repeat(200)}`,
      'https://lists.example.com/api/v2/unsubscribe/AQAAAAGwC4wb_vWPemCIFIVrRPuEgjSXWuhiR-tj2cPO-and-more-than-76',
      randomBytes(300).toString('latin1'),
    ];
    for (const sample of samples) {
      const encoded = encodeQuotedPrintable(sample);
      assert.match(encoded, /^[\t\x20-\x7e\r\n]*$/);
      for (const line of encoded.split('\r\n')) {
        assert.ok(line.length <= 76, line);
        assert.doesNotMatch(line, /[ \t]$/);
      }
      // Line ends, whatever their spelling (a bare CR included), are line breaks.
      assert.equal(decodeQuotedPrintable(encoded), sample.replace(/\r\n?/g, '\n'));
    }
  });

  test('separately encoded pieces joined by soft breaks decode to the joined text', () => {
    const pieces = ['<p>Hello ', 'Zoë', ' </p>\n<a href="', 'https://x.example/', '">', '', 'end '];
    const joined = pieces.map(encodeQuotedPrintable).join(SOFT_BREAK);
    assert.equal(decodeQuotedPrintable(joined), pieces.join(''));
  });
});

describe('header encodings', () => {
  test('encoded words stay within 75 characters and never split a character', () => {
    const text = 'Ünïcödé 😀 '.repeat(20);
    const encoded = encodeWords(text);
    const words = encoded.split('\r\n ');
    for (const word of words) {
      assert.ok(word.length <= 75, word);
      const [, payload] = /^=\?UTF-8\?B\?(.*)\?=$/.exec(word)!;
      assert.doesNotMatch(Buffer.from(payload!, 'base64').toString('utf8'), /\uFFFD/);
    }
    assert.equal(words.map((w) => Buffer.from(w.slice(10, -2), 'base64').toString('utf8')).join(''), text);
    assert.equal(encodeWords('plain ASCII'), 'plain ASCII');
  });

  test('RFC 2231 parameters: quoted when short ASCII, else percent-encoded continuations', () => {
    assert.deepEqual(mimeParameter('filename', 'notes "v2".txt'), ['filename="notes \\"v2\\".txt"']);
    assert.deepEqual(mimeParameter('filename', 'Grüße.pdf'), ["filename*=UTF-8''Gr%C3%BC%C3%9Fe.pdf"]);
    const long = mimeParameter('filename', `${'ä'.repeat(40)}.pdf`);
    assert.ok(long.length > 1);
    long.forEach((part, i) => {
      assert.ok(part.startsWith(`filename*${i}*=`), part);
      assert.ok(part.length <= 78, part);
    });
    const value = long
      .map((p, i) => p.slice(`filename*${i}*=`.length))
      .join('')
      .replace(/^UTF-8''/, '');
    assert.equal(decodeURIComponent(value), `${'ä'.repeat(40)}.pdf`);
  });
});
