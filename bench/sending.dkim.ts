import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobFigures } from './scenario.js';

/*
 * DKIM keys for the signed send: an RSA-2048 key (and an Ed25519 one with BENCH_DKIM=ed25519) made for the run,
 * written to a temporary directory the worker reads through DKIM_KEYS, removed afterwards.
 */

export async function withDkimKeys(from: string, job: (env: Record<string, string>) => Promise<JobFigures>): Promise<JobFigures> {
  const domain = /@([^>]+)>?$/.exec(from)![1]!;
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-dkim-'));
  try {
    const pem = (type: 'rsa' | 'ed25519') =>
      (type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ed25519')).privateKey
        .export({ format: 'pem', type: 'pkcs8' })
        .toString();
    const entries = [`${domain}:bench:${join(dir, 'rsa.pem')}`];
    writeFileSync(join(dir, 'rsa.pem'), pem('rsa'));
    const ed = process.env.BENCH_DKIM === 'ed25519';
    if (ed) {
      writeFileSync(join(dir, 'ed.pem'), pem('ed25519'));
      entries.push(`${domain}:benched:${join(dir, 'ed.pem')}`);
    }
    const figures = await job({ DKIM_KEYS: entries.join(',') });
    return { dkim: ed ? 'rsa-sha256 + ed25519-sha256' : 'rsa-sha256 (2048)', ...figures };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
