import { randomBytes } from 'node:crypto';

/*
 * A subscriber's unique id: 32 lowercase hex characters, as phpList's, and the credential of the subscriber's public
 * links (`uid`, `u`, attachment downloads). The first 8 are the second it was made (Unix time, hex) and the other 24
 * are random: 96 random bits, far beyond guessing through rate-limited anonymous endpoints.
 *
 * Why time first: the unique index on the column then grows at its right edge, as the primary key does. With 128
 * random bits every new id landed on a random page of that index; once the index outgrew the embedded database's
 * buffers (a few hundred thousand subscribers), each insert read and wrote back a page of it, and that was 16 of the
 * 41 s the subscribers' insert took in a 1,000,000-row import on PGlite (issue 24). The price is that an id tells
 * the second its subscriber was created, which the subscriber's own links then carry (as a UUIDv7 does).
 */

const TIME_HEX = 8;
const RANDOM_BYTES = 12;

/** `count` new unique ids, made at `now` (milliseconds since the epoch). */
export function newSubscriberUniqueIds(count: number, now = Date.now()): string[] {
  const time = Math.floor(now / 1000)
    .toString(16)
    .padStart(TIME_HEX, '0')
    .slice(-TIME_HEX);
  const random = randomBytes(RANDOM_BYTES * count).toString('hex');
  const width = RANDOM_BYTES * 2;
  return Array.from({ length: count }, (_, i) => time + random.slice(i * width, (i + 1) * width));
}

export function newSubscriberUniqueId(now = Date.now()): string {
  return newSubscriberUniqueIds(1, now)[0]!;
}
