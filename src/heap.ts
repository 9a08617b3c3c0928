import { setFlagsFromString } from 'node:v8';

/*
 * How far V8 lets the heap grow past what its last full collection kept. By default it grows the old generation to
 * up to four times that when collections are cheap: a million-row import, streaming rows through short-lived objects,
 * held 190 MB of heap for 60–70 MB of live objects, and the embedded service peaked at 655 MB (issue 24). Half again
 * keeps the same import near 105 MB of heap at the same speed. It is a growth factor, not a ceiling: a process that
 * needs more memory still gets it.
 *
 * Imported first by each entry point (server.ts, worker.ts), before the service has allocated much. V8 reads the flag
 * at every full collection, and flags are per process, so the database thread follows it too. An operator's own
 * `node --heap-growing-percent=N` wins.
 */
const HEAP_GROWING_PERCENT = 50;

if (!process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent'))) {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
