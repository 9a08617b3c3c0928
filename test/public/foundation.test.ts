import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { contentSecurityPolicy, pageHeaders, styleHash } from '../../src/public/headers.js';
import { catalogue, fromAcceptLanguage, pickLanguage, translator } from '../../src/shared/i18n.js';
import { renderLayout } from '../../src/public/layout.js';
import { accentVariables, contrast, logoUrl, parseHexColor, safeCustomCss } from '../../src/subscription/page-look.js';
import { decodePreferencesToken, encodePreferencesToken, preferencesUrl } from '../../src/sending/preferences-link.js';
import { STYLESHEET, STYLESHEET_PATH } from '../../src/public/stylesheet.js';
import { encodeUnsubscribeToken } from '../../src/subscription/unsubscribe-token.js';
import { startTestApp, type TestApp } from '../helper.js';

describe('public pages: language', () => {
  test('Accept-Language: q-values, order of ties, wildcards, regions, junk', () => {
    assert.equal(fromAcceptLanguage('de-DE,de;q=0.9,en;q=0.8'), 'de');
    assert.equal(fromAcceptLanguage('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7'), 'en');
    assert.equal(fromAcceptLanguage('en;q=0.5, de;q=0.6'), 'de');
    assert.equal(fromAcceptLanguage('de;q=0, en'), 'en');
    assert.equal(fromAcceptLanguage('fr, *;q=0.1'), 'en');
    assert.equal(fromAcceptLanguage('DE-at'), 'de');
    assert.equal(fromAcceptLanguage('fr, it'), null);
    assert.equal(fromAcceptLanguage('de;q=abc, en;q=0.1'), 'en');
    assert.equal(fromAcceptLanguage(''), null);
    assert.equal(fromAcceptLanguage(undefined), null);
    assert.equal(fromAcceptLanguage(';;;,,,=;q=;'), null);
  });

  test('a long hostile header is read in bounded time', () => {
    const header = `${'x;q=0.5,'.repeat(100_000)}de`;
    const started = process.hrtime.bigint();
    assert.equal(fromAcceptLanguage(header), null); // `de` lies past the part that is read
    assert.ok(process.hrtime.bigint() - started < 1_000_000_000n);
  });

  test("the page's setting wins over the browser; unknown settings fall back to the browser, then English", () => {
    assert.equal(pickLanguage('de', 'en'), 'de');
    assert.equal(pickLanguage(' EN ', 'de'), 'en');
    assert.equal(pickLanguage('klingon', 'de'), 'de');
    assert.equal(pickLanguage(null, undefined), 'en');
  });

  test('translator fills placeholders, leaves unknown ones', () => {
    const messages = catalogue({ en: { hi: 'Hello {name}, {other}' }, de: { hi: 'Hallo {name}, {other}' } });
    assert.equal(translator(messages, 'de')('hi', { name: 'Ada' }), 'Hallo Ada, {other}');
    assert.equal(translator(messages, 'en')('hi'), 'Hello {name}, {other}');
  });
});

describe('public pages: look', () => {
  test('colours: only hex; the text on the accent and the link colours read at 4.5:1', () => {
    assert.deepEqual(parseHexColor('#0f0'), [0, 255, 0]);
    assert.deepEqual(parseHexColor('#FFaa00'), [255, 170, 0]);
    for (const bad of ['red', '#12345', 'rgb(1,2,3)', '#1234567', '', null, '#ff0000;}body{x']) assert.equal(parseHexColor(bad), null);
    const vars = accentVariables('#ffdd00')!;
    assert.match(vars, /--accent:#ffdd00;--accent-ink:#000000;/);
    const link = parseHexColor(/--link:(#[0-9a-f]{6})/.exec(vars)![1])!;
    assert.ok(contrast(link, [255, 255, 255]) >= 4.5);
    const dark = parseHexColor(/--link-dark:(#[0-9a-f]{6})/.exec(accentVariables('#000080')!)![1])!;
    assert.ok(contrast(dark, [0x1c, 0x1f, 0x27]) >= 4.5);
  });

  test('logo URLs: absolute http(s) only, no credentials; custom CSS cannot close its element', () => {
    assert.equal(logoUrl('https://example.org/logo.png')?.origin, 'https://example.org');
    for (const bad of ['javascript:alert(1)', 'data:image/png;base64,AA', '/logo.png', 'https://u:p@example.org/x', '']) {
      assert.equal(logoUrl(bad), null, bad);
    }
    assert.equal(safeCustomCss('h1{color:red}</style><script>x</script>'), 'h1{color:red}/style>script>x/script>');
  });

  test('the layout: language, title, stylesheet, look, footer; its policy allows exactly its inline style and logo', () => {
    const page = renderLayout({
      lang: 'de',
      title: 'Join <us>',
      body: '<h1>Hi</h1>',
      siteName: 'Club',
      look: { logoUrl: 'https://cdn.example.org/l.png', accentColor: '#aa0000', customCss: 'h1{letter-spacing:1px}' },
      footer: 'Club e.V. & friends',
    });
    assert.match(page.html, /^<!doctype html><html lang="de">/);
    assert.match(page.html, /<title>Join &lt;us&gt;<\/title>/);
    assert.ok(page.html.includes(`<link rel="stylesheet" href="${STYLESHEET_PATH}">`));
    assert.match(page.html, /<img src="https:\/\/cdn\.example\.org\/l\.png" alt="Logo von Club">/);
    assert.match(page.html, /<footer>Club e\.V\. &amp; friends<\/footer>/);
    const inline = /<style>(.*?)<\/style>/.exec(page.html)![1]!;
    assert.deepEqual(page.policy, { inlineStyles: [inline], imageOrigins: ['https://cdn.example.org'] });
    const csp = contentSecurityPolicy(page.policy);
    assert.ok(csp.includes("script-src 'none'"));
    assert.ok(csp.includes(`style-src 'self' ${styleHash(inline)}`));
    assert.ok(csp.includes("img-src 'self' data: https://cdn.example.org"));
    assert.ok(csp.includes("frame-ancestors 'none'"));
    const plain = renderLayout({ lang: 'en', title: 'x', body: '' });
    assert.ok(!plain.html.includes('<style>'));
    assert.ok(plain.html.includes('Mailing list service: Mailroom'));
    assert.deepEqual(pageHeaders(plain.policy)['content-security-policy'], contentSecurityPolicy({}));
  });
});

describe('public pages: preferences link', () => {
  test('round trip for hex and other unique ids; forged, other-kind or re-spelled tokens are refused', () => {
    const secret = 's3cret';
    for (const uid of ['0123456789abcdef0123456789abcdef', 'imported-42']) {
      assert.deepEqual(decodePreferencesToken(secret, encodePreferencesToken(secret, uid), 365), { uniqueId: uid });
    }
    const token = encodePreferencesToken(secret, '0123456789abcdef0123456789abcdef');
    assert.equal(decodePreferencesToken('other', token, 365), null);
    assert.equal(decodePreferencesToken(secret, `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, 365), null);
    assert.equal(
      decodePreferencesToken(secret, encodeUnsubscribeToken(secret, { uniqueId: '0123456789abcdef0123456789abcdef', campaignId: 1 }), 365),
      null,
    );
    assert.equal(decodePreferencesToken(secret, 'short', 365), null);
  });
});

describe('GET /public/style.<hash>.css', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('the stylesheet, cached for a year; another name is a 404', async () => {
    const res = await t.inject({ method: 'GET', url: STYLESHEET_PATH });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/css; charset=utf-8');
    assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.body, STYLESHEET);
    const other = await t.inject({ method: 'GET', url: '/public/style.000000000000.css' });
    assert.equal(other.statusCode, 404);
    assert.ok(preferencesUrl(t.ctx, { uniqueId: 'abc' }).startsWith(`${t.config.publicUrl}/preferences/`));
  });
});
