import { generateKeyPairSync } from 'node:crypto';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { dkimKey, type DkimKey } from '../../src/shared/dkim-keys.js';

/*
 * DKIM keys made for a test run, and mailauth's verifier (an independent implementation) with a resolver stub that
 * serves their public keys as DNS TXT records.
 */

export function rsaPem(bits = 2048): string {
  return generateKeyPairSync('rsa', { modulusLength: bits }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

export function ed25519Pem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

/** An RSA-2048 key (selector `rsa1`) and an Ed25519 key (`ed1`) for `domain`. */
export function testKeys(domain = 'example.com'): DkimKey[] {
  return [dkimKey({ domain, selector: 'rsa1' }, rsaPem(), 'test'), dkimKey({ domain, selector: 'ed1' }, ed25519Pem(), 'test')];
}

export interface Verified {
  readonly domain: string;
  readonly selector: string;
  readonly algorithm: string;
  readonly result: string;
}

/** Every DKIM signature of the raw message as mailauth judges it, the published records being those of `keys`. */
export async function verify(raw: Buffer, keys: readonly DkimKey[]): Promise<Verified[]> {
  const records = new Map(keys.map((k) => [k.dnsName, k.dnsRecord]));
  const resolver = async (name: string, type: string) => {
    const record = records.get(name.toLowerCase());
    if (type !== 'TXT' || !record) throw Object.assign(new Error(`no ${type} record for ${name}`), { code: 'ENOTFOUND' });
    // As DNS serves it: strings of at most 255 characters.
    const strings: string[] = [];
    for (let i = 0; i < record.length; i += 255) strings.push(record.slice(i, i + 255));
    return [strings];
  };
  const { results } = await dkimVerify(raw, { resolver });
  return results.map((r) => ({
    domain: String(r.signingDomain),
    selector: String(r.selector),
    // The result carries `algo` (its type declaration says `algorithm`).
    algorithm: String((r as { algo?: string }).algo ?? r.algorithm),
    result: String(r.status.result),
  }));
}

/** What two good signatures (RSA then Ed25519) of `domain` look like. */
export function bothPass(domain = 'example.com'): Verified[] {
  return [
    { domain, selector: 'rsa1', algorithm: 'rsa-sha256', result: 'pass' },
    { domain, selector: 'ed1', algorithm: 'ed25519-sha256', result: 'pass' },
  ];
}
