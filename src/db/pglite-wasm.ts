import { readFile } from 'node:fs/promises';
import v8 from 'node:v8';
import type { PGliteOptions } from '@electric-sql/pglite';

/*
 * PGlite's WebAssembly (9 MB of PostgreSQL), compiled once per process and shared by every database thread: a
 * compiled module posted to a worker is not compiled again there, and a function compiled for one thread serves all.
 *
 * Its functions are compiled by V8's optimising compiler (TurboFan) when first called. Left to itself, V8 first
 * compiles each with its baseline compiler (Liftoff), compiles the hot ones again as they warm up, and keeps both:
 * in a 1,000,000-row import on the embedded database that was 50-60 MB more peak memory (383-406 MB against
 * 334-344 MB for the service, in alternating runs) at the same speed (issue 24). The price is slower first calls:
 * about 2 s more CPU for the first database a process opens.
 */

export type PgliteWasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>;

/** Node's WebAssembly, which TypeScript's ES libraries leave undeclared (only its DOM library declares it). */
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<PgliteWasmModule> } }).WebAssembly;

let compiled: Promise<PgliteWasmModule> | undefined;

export function pgliteWasmModule(): Promise<PgliteWasmModule> {
  compiled ??= compileOptimised();
  return compiled;
}

async function compileOptimised(): Promise<PgliteWasmModule> {
  const bytes = await readFile(new URL('pglite.wasm', import.meta.resolve('@electric-sql/pglite')));
  // A flag of V8's, so for the whole process and every WebAssembly module in it, and it stays set: V8 compiles a
  // function when it is first called, long after this returns. PGlite's is the only module of any size here.
  v8.setFlagsFromString('--no-liftoff');
  return wasm.compile(bytes);
}
