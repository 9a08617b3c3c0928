import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The test servers' key and certificate: self-signed (a CA of its own) for localhost and 127.0.0.1. */
export const CERT_PATH = join(import.meta.dirname, '..', 'fixtures', 'tls', 'localhost.crt');
export const cert = readFileSync(CERT_PATH);
export const key = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'tls', 'localhost.key'));
