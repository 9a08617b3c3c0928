import { cpSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';

/** Every file under a directory, depth first. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * Transpiles the TypeScript files under `dirs` to JavaScript in `outdir`, file by file, keeping each file's path
 * relative to `outbase`, and copies every other file (SQL routines, HTML templates, fixtures) beside them. Types are
 * checked by `tsc`, not here.
 */
export async function transpileTree(dirs: readonly string[], outbase: string, outdir: string, sourcemap: 'linked' | 'inline'): Promise<void> {
  const files = dirs.flatMap(filesUnder);
  await build({
    entryPoints: files.filter((file) => file.endsWith('.ts')),
    outdir,
    outbase,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap,
    logLevel: 'warning',
  });
  for (const asset of files.filter((file) => !file.endsWith('.ts'))) cpSync(asset, join(outdir, relative(outbase, asset)));
}
