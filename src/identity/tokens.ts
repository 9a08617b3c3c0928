import { createHash, randomBytes } from 'node:crypto';

/** A fresh secret in phpList's format: 32 lowercase hex characters (128 random bits). */
export function newSecret(): string {
  return randomBytes(16).toString('hex');
}

/** What is stored instead of a secret. The secrets are random, so a fast hash is enough to make a leak useless. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
