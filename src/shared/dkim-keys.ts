import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

/*
 * DKIM keys (RFC 6376; Ed25519 per RFC 8463) from configuration: `DKIM_KEYS` lists `domain:selector:/path/key.pem`
 * entries, comma-separated. The private keys are read from their files at start and live only as KeyObjects, which
 * print as `PrivateKeyObject {}`: no key material reaches a log, the database or an error message.
 */

export type DkimAlgorithm = 'rsa-sha256' | 'ed25519-sha256';

export interface DkimKey {
  /** The signing domain (`d=`), lower case. Signs mail whose From domain is this domain or below it. */
  readonly domain: string;
  readonly selector: string;
  readonly algorithm: DkimAlgorithm;
  readonly privateKey: KeyObject;
  /** Where the public key is published: `selector._domainkey.domain`. */
  readonly dnsName: string;
  /** The TXT record to publish there. */
  readonly dnsRecord: string;
}

export class DkimKeyError extends Error {}

/** RFC 8301: RSA keys under 1,024 bits must not be used; 2,048 is what the large mailbox providers expect. */
const MIN_RSA_BITS = 2048;
const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const SELECTOR = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

export interface DkimKeyEntry {
  readonly domain: string;
  readonly selector: string;
  readonly file: string;
}

/** `domain:selector:/path, …` → entries (the path is everything after the second colon). */
export function parseDkimSetting(value: string): DkimKeyEntry[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const first = entry.indexOf(':');
      const second = entry.indexOf(':', first + 1);
      if (first < 0 || second < 0 || second === entry.length - 1) {
        throw new DkimKeyError(`"${entry}" is not domain:selector:/path/to/key.pem`);
      }
      const domain = entry.slice(0, first).trim().toLowerCase().replace(/\.$/, '');
      const selector = entry.slice(first + 1, second).trim();
      if (!DOMAIN.test(domain)) throw new DkimKeyError(`"${domain}" is not a domain name`);
      if (!SELECTOR.test(selector)) throw new DkimKeyError(`"${selector}" is not a DKIM selector (letters, digits, hyphens, dots)`);
      return { domain, selector, file: entry.slice(second + 1).trim() };
    });
}

/** The key's public half as the `p=` of its DNS record: SubjectPublicKeyInfo for RSA, the bare 32 bytes for Ed25519. */
function publicKeyData(key: KeyObject, algorithm: DkimAlgorithm): string {
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return (algorithm === 'ed25519-sha256' ? spki.subarray(spki.length - 32) : spki).toString('base64');
}

/** A parsed private key checked for use with DKIM. `source` names it in errors (a file name, never its content). */
export function dkimKey(entry: { domain: string; selector: string }, pem: string | Buffer, source: string): DkimKey {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch {
    throw new DkimKeyError(`${source} holds no readable private key (PEM, unencrypted)`);
  }
  let algorithm: DkimAlgorithm;
  if (privateKey.asymmetricKeyType === 'rsa') {
    const bits = privateKey.asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits < MIN_RSA_BITS) throw new DkimKeyError(`${source} is a ${bits}-bit RSA key; DKIM needs ${MIN_RSA_BITS} bits or more`);
    algorithm = 'rsa-sha256';
  } else if (privateKey.asymmetricKeyType === 'ed25519') {
    algorithm = 'ed25519-sha256';
  } else {
    throw new DkimKeyError(`${source} is a ${privateKey.asymmetricKeyType} key; DKIM signs with RSA or Ed25519`);
  }
  const k = algorithm === 'rsa-sha256' ? 'rsa' : 'ed25519';
  return {
    domain: entry.domain,
    selector: entry.selector,
    algorithm,
    privateKey,
    dnsName: `${entry.selector}._domainkey.${entry.domain}`,
    dnsRecord: `v=DKIM1; k=${k}; p=${publicKeyData(privateKey, algorithm)}`,
  };
}

/** Reads every configured key. At most one RSA and one Ed25519 key per domain: each signs every mail of it. */
export function loadDkimKeys(setting: string): DkimKey[] {
  const keys = parseDkimSetting(setting).map((entry) => {
    let pem: Buffer;
    try {
      pem = readFileSync(entry.file);
    } catch (err) {
      throw new DkimKeyError(`cannot read the key file ${entry.file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    return dkimKey(entry, pem, entry.file);
  });
  const seen = new Set<string>();
  for (const key of keys) {
    const id = `${key.domain} ${key.algorithm}`;
    if (seen.has(id)) throw new DkimKeyError(`two ${key.algorithm === 'rsa-sha256' ? 'RSA' : 'Ed25519'} keys for ${key.domain}; give one per domain`);
    seen.add(id);
  }
  return keys;
}

/**
 * The keys that sign mail from `domain`: those of the most specific configured domain that is `domain` or a parent
 * of it (a `news.example.com` From address is signed as `example.com` when only that has keys; DMARC's relaxed
 * alignment accepts it).
 */
export function keysForDomain(keys: readonly DkimKey[], domain: string): DkimKey[] {
  let name = domain.toLowerCase().replace(/\.$/, '');
  for (;;) {
    const found = keys.filter((key) => key.domain === name);
    if (found.length > 0) return found;
    const dot = name.indexOf('.');
    if (dot < 0) return [];
    name = name.slice(dot + 1);
  }
}
