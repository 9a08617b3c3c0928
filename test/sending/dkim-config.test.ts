import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect, promisify } from 'node:util';
import { ConfigError, loadConfig } from '../../src/config.js';
import { ed25519Pem, rsaPem, verify } from './dkim-fixtures.js';
import { createDkimSigner } from '../../src/mail/dkim/signer.js';

/*
 * DKIM keys from DKIM_KEYS (files read at start, refused with a message naming what is wrong, never the key), and
 * `npm run dkim`, which prints the DNS records to publish and warns about sender domains without a key.
 */

const run = promisify(execFile);
let dir: string;
let rsa: string;
let ed: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'mailroom-dkim-'));
  rsa = join(dir, 'rsa.pem');
  ed = join(dir, 'ed.pem');
  writeFileSync(rsa, rsaPem());
  writeFileSync(ed, ed25519Pem());
  writeFileSync(join(dir, 'short.pem'), rsaPem(1024));
  writeFileSync(join(dir, 'junk.pem'), 'not a key at all');
});
after(() => rmSync(dir, { recursive: true, force: true }));

const load = (value: string) => loadConfig({ DKIM_KEYS: value });

describe('DKIM_KEYS', () => {
  test('keys for several domains, RSA and Ed25519, with their DNS names and records', async () => {
    const config = load(`Example.COM:rsa1:${rsa}, example.com:ed1:${ed}, example.org:s2026.a:${rsa}`);
    assert.deepEqual(
      config.dkim.map((k) => [k.domain, k.selector, k.algorithm, k.dnsName]),
      [
        ['example.com', 'rsa1', 'rsa-sha256', 'rsa1._domainkey.example.com'],
        ['example.com', 'ed1', 'ed25519-sha256', 'ed1._domainkey.example.com'],
        ['example.org', 's2026.a', 'rsa-sha256', 's2026.a._domainkey.example.org'],
      ],
    );
    assert.match(config.dkim[0]!.dnsRecord, /^v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA[A-Za-z0-9+/]+=*$/);
    assert.match(config.dkim[1]!.dnsRecord, /^v=DKIM1; k=ed25519; p=[A-Za-z0-9+/]{43}=$/);
    // A KeyObject prints nothing of the key, as JSON or in a log line.
    const secret = readFileSync(rsa, 'utf8').split('\n')[1]!;
    const printed = JSON.stringify(config) + inspect(config, { depth: 5, showHidden: true });
    assert.ok(secret.length > 40 && !printed.includes(secret) && !printed.includes('PRIVATE KEY'));

    // The loaded keys sign what mailauth verifies against those records.
    const message = Buffer.from('From: a@example.org\r\nTo: b@example.net\r\nSubject: hi\r\n\r\nHello\r\n');
    const signed = Buffer.concat(await createDkimSigner(config.dkim).sign([message]));
    assert.deepEqual(await verify(signed, config.dkim), [{ domain: 'example.org', selector: 's2026.a', algorithm: 'rsa-sha256', result: 'pass' }]);
  });

  test('empty: no keys', () => {
    assert.deepEqual(loadConfig({}).dkim, []);
  });

  const refusals: [string, (d: string) => string, RegExp][] = [
    ['no selector', () => 'example.com', /DKIM_KEYS: "example.com" is not domain:selector:\/path\/to\/key.pem/],
    ['a bad domain', () => `exa mple.com:s1:${rsa}`, /DKIM_KEYS: "exa mple.com" is not a domain name/],
    ['a bad selector', () => `example.com:s_1:${rsa}`, /DKIM_KEYS: "s_1" is not a DKIM selector/],
    ['a missing file', (d) => `example.com:s1:${d}/missing.pem`, /DKIM_KEYS: cannot read the key file .*missing\.pem: ENOENT/],
    ['not a key', (d) => `example.com:s1:${d}/junk.pem`, /DKIM_KEYS: .*junk\.pem holds no readable private key/],
    ['a 1024-bit RSA key', (d) => `example.com:s1:${d}/short.pem`, /DKIM_KEYS: .*short\.pem is a 1024-bit RSA key; DKIM needs 2048 bits or more/],
    ['two RSA keys for one domain', () => `example.com:a:${rsa},example.com:b:${rsa}`, /DKIM_KEYS: two RSA keys for example.com/],
  ];
  for (const [what, value, message] of refusals) {
    test(`refused at start: ${what}`, () => {
      assert.throws(
        () => load(value(dir)),
        (err: Error) => err instanceof ConfigError && message.test(err.message) && !err.message.includes('PRIVATE'),
      );
    });
  }
});

describe('npm run dkim', () => {
  const dkim = (env: Record<string, string>, ...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'scripts/dkim.ts', ...args], { env: { PATH: process.env.PATH, ...env } }).then(
      (r) => ({ code: 0, ...r }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
    );

  test('prints a TXT record per key; warns (exit 1) for sender domains no key signs', async () => {
    const env = { DKIM_KEYS: `example.com:rsa1:${rsa},example.com:ed1:${ed}`, MAIL_FROM: 'Mailroom <mailroom@example.com>' };
    const config = load(env.DKIM_KEYS);
    const ok = await dkim(env, 'News <news@lists.example.com>');
    assert.equal(ok.code, 0, ok.stderr);
    const rsaRecord = config.dkim[0]!.dnsRecord;
    assert.equal(
      ok.stdout,
      `rsa1._domainkey.example.com. IN TXT ( "${rsaRecord.slice(0, 250)}" "${rsaRecord.slice(250)}" )\n` +
        `ed1._domainkey.example.com. IN TXT "${config.dkim[1]!.dnsRecord}"\n`,
    );
    assert.equal(ok.stderr, '');

    const warned = await dkim(env, 'news@example.net', 'Other <x@example.net>');
    assert.equal(warned.code, 1);
    assert.equal(
      warned.stderr,
      'warning: no DKIM key for example.net: mail from it goes out unsigned (add domain:selector:/path/key.pem to DKIM_KEYS)\n',
    );
  });

  test('a bad setting: exit 78 naming it', async () => {
    const bad = await dkim({ DKIM_KEYS: 'example.com' });
    assert.equal(bad.code, 78);
    assert.match(bad.stderr, /^dkim: Invalid environment variable DKIM_KEYS: /);
  });
});

describe('DKIM_THREADS', () => {
  test('unset, empty or 0: chosen for the machine; a count of threads is taken as it is', () => {
    assert.equal(loadConfig({}).dkimThreads, 0);
    assert.equal(loadConfig({ DKIM_THREADS: '' }).dkimThreads, 0);
    assert.equal(loadConfig({ DKIM_THREADS: ' 2 ' }).dkimThreads, 2);
  });

  test('a negative count, a word or too many is refused, naming the variable', () => {
    const refused = {
      '-1': 'DKIM_THREADS=-1: Expected integer to be greater or equal to 0',
      two: 'DKIM_THREADS="two": Expected integer',
      '65': 'DKIM_THREADS=65: Expected integer to be less or equal to 64',
    };
    for (const [value, message] of Object.entries(refused)) {
      assert.throws(
        () => loadConfig({ DKIM_THREADS: value }),
        (err: unknown) => err instanceof ConfigError && err.message === `Invalid environment variable ${message}`,
        value,
      );
    }
  });
});
