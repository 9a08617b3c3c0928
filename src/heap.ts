import { setFlagsFromString } from 'node:v8';

/*
 * How far V8 lets the heap grow past what its last full collection kept. By default it grows the old generation to
 * up to four times that when collections are cheap: a million-row import on the embedded database, streaming rows
 * through short-lived objects, held 190 MB of heap for 60–70 MB of live objects, and the service peaked at 655 MB
 * (issue 24). Half again keeps the same import near 105 MB of heap at the same speed. It is a growth factor, not a
 * ceiling: a process that needs more memory still gets it.
 *
 * The embedded database only, where the service is the whole installation and its memory is what a small machine
 * has to spare. Not for a sending process: there the extra collections cost 10 % more CPU per message and 3–7 % of
 * the rate (50,000 recipients, 526 → 570–586 µs per message) for 60 MB less memory.
 */
const HEAP_GROWING_PERCENT = 50;

/**
 * Sets the growth factor for this process (flags are per process, so the database thread follows it too). V8 reads
 * it at every full collection, so setting it at start, before the service has allocated much, takes effect. An
 * operator's own `node --heap-growing-percent=N` wins.
 */
export function limitHeapGrowth(): void {
  if (process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent'))) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
