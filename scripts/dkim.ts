import { ConfigError, loadConfig } from '../src/config.js';
import { dnsRecordLines, unsignedDomainWarnings } from '../src/mail/dkim/dns.js';

/**
 * `npm run dkim [-- From-address …]`: the DNS TXT records to publish for the keys DKIM_KEYS configures, and a
 * warning for MAIL_FROM's domain, and for each From address given, when no key signs it. Exit 1 on a warning.
 */
let config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`dkim: ${err.message}`);
  process.exit(78);
}
if (config.dkim.length === 0) console.log('# DKIM_KEYS is empty: no mail is signed.');
for (const line of dnsRecordLines(config.dkim)) console.log(line);
const warnings = unsignedDomainWarnings(config.dkim, [config.mailFrom, ...process.argv.slice(2)]);
for (const warning of warnings) console.error(warning);
process.exit(warnings.length > 0 ? 1 : 0);
