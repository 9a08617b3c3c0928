import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { compileCampaign } from '../src/sending/compose/index.js';
import { withComposeFixture } from './compose-fixture.js';

/*
 * How fast the composer renders. A realistic campaign — a template around about 10 KB of HTML with personalisation,
 * a dozen tracked links, one 100 KB attachment — compiled once against an in-memory PGlite, then rendered for
 * RECIPIENTS (default 100,000) recipients in this process. Nothing is sent: this measures composition alone.
 *
 *   npx tsx bench/compose-measure.ts            RECIPIENTS=20000 ATTACHMENT_KB=0 npx tsx bench/compose-measure.ts
 *
 * With the attachment, each mail is ~154 KB of fresh memory: copying the encoded attachment into it, and the page
 * faults of memory glibc hands back to the kernel between mails, cost more than composing (MALLOC_TRIM_THRESHOLD_=
 * 268435456 MALLOC_MMAP_THRESHOLD_=16777216 in the environment roughly halve that). ATTACHMENT_KB=0 measures
 * composition alone.
 *
 * Prints one JSON line: compile time, recipient loading rate (a batch of 1,000), renders per second of wall time and
 * per second of this process's CPU time (the wall clock also counts other processes' turns on a shared machine, and
 * the one-minute load average says how shared it was), the average message size and the process's resident memory
 * (now and peak).
 */

const RECIPIENTS = Number(process.env.RECIPIENTS ?? 100_000);
const ATTACHMENT_KB = Number(process.env.ATTACHMENT_KB ?? 100);
function peakRssMb(): number | null {
  try {
    const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
    return Number.isFinite(kb) ? Math.round(kb / 1024) : null;
  } catch {
    return null;
  }
}

function newsletterHtml(): string {
  const article = (i: number) => `
    <tr><td style="padding:16px 24px;font-family:Arial,sans-serif">
      <h2 style="margin:0 0 8px;font-size:20px;color:#222">Story ${i}: what changed this week in the garden</h2>
      <img src="https://cdn.example.com/img/story-${i}.jpg" width="552" height="200" alt="Story ${i}">
      <p style="font-size:15px;line-height:22px;color:#444">Dear [FIRST NAME%%reader], this season in [CITY%%your town]
      brought more rain than any spring since records began. Our gardeners tried raised beds, mulch and drip lines;
      the results, with numbers and photographs, are in the full article. Readers who wrote in told us about their
      own tricks &mdash; thank you, and keep them coming. We read every letter, even the ones about slugs.</p>
      <p style="font-size:15px;line-height:22px;color:#444">More on this in our archive, with the letters that started it
      and the answers from the gardeners of [CITY%%your town]: <a href="https://news.example.com/2026/11/story-${i}?utm_source=newsletter&amp;utm_medium=email">read the whole story</a>.</p>
    </td></tr>`;
  return `<h1 style="font-family:Arial,sans-serif">Hello [FIRST NAME%%there]!</h1>
    <p>This issue was sent to [EMAIL], subscribed to: [LISTS]</p>
    <table width="600" cellpadding="0" cellspacing="0" role="presentation">${Array.from({ length: 9 }, (_, i) => article(i + 1)).join('')}</table>
    <p><a href="https://shop.example.com/?ref=newsletter">Our shop</a> &middot; <a href="mailto:editor@example.com">Write to the editor</a></p>`;
}

const TEMPLATE = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>[SUBJECT]</title>
<style>body{margin:0;background:#f4f4f4} a{color:#0a66c2}</style></head>
<body><table width="100%" cellpadding="0" cellspacing="0" role="presentation"><tr><td align="center">
<a href="https://www.example.com/"><img src="https://cdn.example.com/logo.png" width="200" height="60" alt="Example News"></a>
[CONTENT]
<p style="font-size:12px;color:#888">[FOOTER]</p>
</td></tr></table></body></html>`;

async function main() {
  const content = {
    template: TEMPLATE,
    html: newsletterHtml(),
    subject: 'Garden News — November',
    footer: 'You get this because you subscribed. [UNSUBSCRIBE] · [PREFERENCES]',
    from: 'Garden News <news@example.com>',
    attachmentBytes: ATTACHMENT_KB * 1024,
  };
  await withComposeFixture(content, async ({ ctx, campaignId, loadMs, recipients: make }) => {
    let started = performance.now();
    const compiled = await compileCampaign(ctx, campaignId);
    const compileMs = performance.now() - started;

    const recipients = make(RECIPIENTS);
    for (let i = 0; i < 2000; i++) compiled.render(recipients[i % RECIPIENTS]!, i); // warm-up

    const rssBeforeMb = Math.round(process.memoryUsage().rss / 1048576);
    let bytes = 0;
    const cpuBefore = process.cpuUsage();
    started = performance.now();
    for (let i = 0; i < recipients.length; i++) for (const chunk of compiled.render(recipients[i]!, i + 1).message.raw) bytes += chunk.length;
    const renderMs = performance.now() - started;
    // CPU time as well as wall time: on a shared machine the wall clock also counts other processes' turns.
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;

    process.stdout.write(
      `${JSON.stringify({
        node: process.version,
        html_body_kb: Math.round(Buffer.byteLength(content.html) / 102.4) / 10,
        compile_ms: Math.round(compileMs),
        recipients_loaded_per_s: Math.round(1000 / (loadMs / 1000)),
        attachment_kb: ATTACHMENT_KB,
        recipients: RECIPIENTS,
        renders_per_s: Math.round(RECIPIENTS / (renderMs / 1000)),
        renders_per_cpu_s: Math.round(RECIPIENTS / (cpuMs / 1000)),
        load_average: Number(loadavg()[0]!.toFixed(2)),
        avg_message_kb: Math.round(bytes / RECIPIENTS / 102.4) / 10,
        rss_before_render_mb: rssBeforeMb,
        rss_mb: Math.round(process.memoryUsage().rss / 1048576),
        heap_used_mb: Math.round(process.memoryUsage().heapUsed / 1048576),
        peak_rss_mb: peakRssMb(),
      })}\n`,
    );
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
