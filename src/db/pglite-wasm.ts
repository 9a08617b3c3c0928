import v8 from 'node:v8';

/**
 * From now on, WebAssembly (PGlite's: 9 MB of PostgreSQL) is compiled by V8's optimising compiler (TurboFan) alone.
 * Left to itself, V8 first compiles each function with its baseline compiler (Liftoff), compiles the hot ones again
 * as they warm up, and keeps both: in a 1,000,000-row import on the embedded database that was 50-60 MB more peak
 * memory for the service (383-406 MB against 334-352 MB, alternating runs) at the same speed (issue 24). The price is
 * slower first calls, which a long-running service pays once. A flag of V8's: it holds for the whole process and
 * every module compiled after it is set (PGlite's is the only one of any size here), so it is set before the
 * database thread starts, and stays set.
 */
export function optimisePgliteWasm(): void {
  v8.setFlagsFromString('--no-liftoff');
}
