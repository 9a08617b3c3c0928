import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dkimKey, type DkimKey } from '../src/shared/dkim-keys.js';
import { createSigningPool } from '../src/mail/dkim/pool.js';
import { createDkimSigner, type DkimSigner } from '../src/mail/dkim/signer.js';
import { compileCampaign } from '../src/sending/compose/index.js';
import { withComposeFixture } from './compose-fixture.js';
import { ATTACHMENT_BYTES, FOOTER, FROM, SUBJECT, TEMPLATE, newsletterBody } from './sending.seeds.js';

/*
 * What DKIM signing costs a sender, apart from SMTP and the database: the campaign of the sending benches (10 KB of
 * HTML with personal values and tracked links, a text part, a 40 KB attachment) compiled in an in-memory PGlite and
 * rendered for RECIPIENTS recipients, then the same renders signed, with IN_FLIGHT signatures pending at a time as
 * the worker's slots allow, with an RSA-2048 key, an Ed25519 key, and both; each in-process (the private-key
 * operation on libuv's thread pool) and on a pool of 1 and of 2 signing threads (mail/dkim/pool.ts). For each: wall
 * time, the process's CPU a message (every thread) and the main thread's CPU a message (from
 * /proc/self/task/<pid>/stat, Linux), the part that takes from the one thread that composes and speaks SMTP.
 *
 *   npx tsx bench/dkim-measure.ts        RECIPIENTS=20000 IN_FLIGHT=64 npx tsx bench/dkim-measure.ts
 */

const RECIPIENTS = Number(process.env.RECIPIENTS ?? 20_000);
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 64);

function key(type: 'rsa' | 'ed25519'): DkimKey {
  const pair = type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ed25519');
  const pem = pair.privateKey.export({ format: 'pem', type: 'pkcs8' });
  return dkimKey({ domain: 'bench.invalid', selector: type }, pem, type);
}

interface Figures {
  readonly ms: number;
  readonly cpuUs: number;
  readonly mainUs: number;
}

/** CPU seconds of the main thread so far (utime + stime at 100 ticks a second); NaN off Linux. */
function mainThreadCpuS(): number {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Runs `work(i)` for every i, at most IN_FLIGHT at once; time, process CPU and main-thread busy time, per item. */
async function measure(n: number, work: (i: number) => unknown): Promise<Figures> {
  const cpu = process.cpuUsage();
  const main = mainThreadCpuS();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < n) await work(next++);
    }),
  );
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, cpuUs: (used.user + used.system) / n, mainUs: ((mainThreadCpuS() - main) * 1e6) / n };
}

async function main() {
  const content = { template: TEMPLATE, html: newsletterBody(), subject: SUBJECT, footer: FOOTER, from: FROM, attachmentBytes: ATTACHMENT_BYTES };
  await withComposeFixture(content, async ({ ctx, campaignId, recipients: make }) => {
    const compiled = await compileCampaign(ctx, campaignId);
    const recipients = make(RECIPIENTS);
    const rsa = key('rsa');
    const ed = key('ed25519');
    const sets = { rsa: [rsa], ed25519: [ed], both: [rsa, ed] };
    // Each key set signed in-process (libuv's pool for the private-key operation) and on a pool of 1 and of 2 threads.
    const signers: Record<string, DkimSigner> = {};
    for (const [name, keys] of Object.entries(sets)) {
      signers[`${name}_inprocess`] = createDkimSigner(keys);
      signers[`${name}_threads1`] = createSigningPool(keys, { threads: 1 });
      signers[`${name}_threads2`] = createSigningPool(keys, { threads: 2 });
    }
    const render = (i: number) => compiled.render(recipients[i % RECIPIENTS]!, i + 1).message.raw;
    // Warm-up: every path compiled by V8, the attachment's canonical form cached.
    for (const signer of Object.values(signers)) await measure(2000, (i) => signer.sign(render(i)));

    const line: Record<string, number | string> = { node: process.version, recipients: RECIPIENTS, in_flight: IN_FLIGHT };
    const rendered = await measure(RECIPIENTS, render);
    line.render_cpu_us = Math.round(rendered.cpuUs);
    line.render_main_thread_us = Math.round(rendered.mainUs);
    let bytes = 0;
    for (const chunk of render(0)) bytes += chunk.length;
    line.message_kb = Math.round(bytes / 102.4) / 10;
    for (const [name, signer] of Object.entries(signers)) {
      const f = await measure(RECIPIENTS, (i) => signer.sign(render(i)));
      line[`${name}_per_s`] = Math.round(RECIPIENTS / (f.ms / 1000));
      line[`${name}_cpu_us`] = Math.round(f.cpuUs - rendered.cpuUs);
      line[`${name}_main_thread_us`] = Math.round(f.mainUs - rendered.mainUs);
    }
    line.load_average = Number(loadavg()[0]!.toFixed(2));
    await Promise.all(Object.values(signers).map((signer) => signer.close()));
    process.stdout.write(`${JSON.stringify(line)}\n`);
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
