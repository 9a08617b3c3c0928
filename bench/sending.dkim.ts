import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobFigures } from './scenario.js';

/*
 * DKIM keys for the signed send, made for the run, written to a temporary directory the worker reads through
 * DKIM_KEYS, removed afterwards. BENCH_DKIM chooses them: `rsa` (an RSA-2048 key, the default), `ed25519` (an
 * Ed25519 key only) or `both` (the two, each message signed twice). DKIM_THREADS, when set, reaches the worker
 * with the rest of the environment (the signing threads, mail/dkim/pool.ts).
 */

const CHOICES = { rsa: ['rsa'], ed25519: ['ed25519'], both: ['rsa', 'ed25519'] } as const;
type Choice = keyof typeof CHOICES;

function choice(): Choice {
  const value = process.env.BENCH_DKIM || 'rsa';
  if (!(value in CHOICES)) throw new Error(`BENCH_DKIM must be rsa, ed25519 or both, got ${JSON.stringify(value)}`);
  return value as Choice;
}

export async function withDkimKeys(from: string, job: (env: Record<string, string>) => Promise<JobFigures>): Promise<JobFigures> {
  const domain = /@([^>]+)>?$/.exec(from)![1]!;
  const chosen = choice();
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-dkim-'));
  try {
    const entries = CHOICES[chosen].map((type) => {
      const pair = type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ed25519');
      const file = join(dir, `${type}.pem`);
      writeFileSync(file, pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
      return `${domain}:bench-${type}:${file}`;
    });
    const figures = await job({ DKIM_KEYS: entries.join(',') });
    const names = { rsa: 'rsa-sha256 (2048)', ed25519: 'ed25519-sha256', both: 'rsa-sha256 (2048) + ed25519-sha256' };
    return { dkim: names[chosen], dkim_threads: process.env.DKIM_THREADS || 'default', ...figures };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
