import type { DkimKey } from '../../shared/dkim-keys.js';
import { keysForDomain } from '../../shared/dkim-keys.js';

/*
 * What to publish in DNS for the configured keys (`npm run dkim`), as zone-file lines: a TXT record's strings may
 * hold 255 characters each, so the record of an RSA-2048 key is split into several, which resolvers join.
 */

function quotedStrings(record: string): string {
  const strings: string[] = [];
  for (let i = 0; i < record.length; i += 250) strings.push(`"${record.slice(i, i + 250)}"`);
  return strings.length === 1 ? strings[0]! : `( ${strings.join(' ')} )`;
}

/** One zone-file line per key: `selector._domainkey.domain. IN TXT ( "v=DKIM1; k=rsa; p=…" … )`. */
export function dnsRecordLines(keys: readonly DkimKey[]): string[] {
  return keys.map((key) => `${key.dnsName}. IN TXT ${quotedStrings(key.dnsRecord)}`);
}

/** The domain of an address in `Name <a@b>` or `a@b` form, lower case. */
export function domainOfMailbox(value: string): string {
  const angle = /<([^<>]*)>\s*$/.exec(value);
  const address = (angle ? angle[1]! : value).trim();
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

/** A warning for each sender domain (of MAIL_FROM and the given From fields) that no key signs, else nothing. */
export function unsignedDomainWarnings(keys: readonly DkimKey[], senders: readonly string[]): string[] {
  const domains = [...new Set(senders.map(domainOfMailbox).filter(Boolean))];
  return domains
    .filter((domain) => keysForDomain(keys, domain).length === 0)
    .map((domain) => `warning: no DKIM key for ${domain}: mail from it goes out unsigned (add domain:selector:/path/key.pem to DKIM_KEYS)`);
}
