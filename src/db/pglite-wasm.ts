import { readFile } from 'node:fs/promises';
import v8 from 'node:v8';
import type { PGliteOptions } from '@electric-sql/pglite';

/*
 * PGlite's WebAssembly (9 MB of PostgreSQL), compiled once per process and shared by every database thread: a
 * compiled module posted to a worker is not compiled again there.
 *
 * It is compiled by V8's optimising compiler from the start. Left to itself, V8 first compiles every function with
 * its baseline compiler (Liftoff), then compiles the hot ones again as they warm up, and keeps both: in a
 * 1,000,000-row import on the embedded database that was 50-60 MB more peak memory (383-406 MB against 334-344 MB
 * for the service, in alternating runs) at the same speed (issue 24). The price is a longer compile, once: about
 * 2 s of CPU instead of 0.3 s, at the first database opened by the process.
 */

export type PgliteWasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>;

/** Node's WebAssembly, which TypeScript's ES libraries leave undeclared (only its DOM library declares it). */
const wasm = (globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => PgliteWasmModule } }).WebAssembly;

let compiled: Promise<PgliteWasmModule> | undefined;

export function pgliteWasmModule(): Promise<PgliteWasmModule> {
  compiled ??= compileOptimised();
  return compiled;
}

async function compileOptimised(): Promise<PgliteWasmModule> {
  const bytes = await readFile(new URL('pglite.wasm', import.meta.resolve('@electric-sql/pglite')));
  // The flag is V8's, for the whole process: it is set only while this module compiles (synchronously, on this
  // thread) and then put back. A database thread compiling an extension meanwhile merely gets optimised code too.
  v8.setFlagsFromString('--no-liftoff');
  try {
    return new wasm.Module(bytes);
  } finally {
    v8.setFlagsFromString('--liftoff');
  }
}
