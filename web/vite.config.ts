import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/** The kinds of file worth compressing: text. Images and fonts are compressed already. */
const COMPRESSIBLE = /\.(html|js|css|svg|json|map|txt)$/;

/**
 * Writes `<file>.br` and `<file>.gz` beside each text file of the build, at the strongest settings (paid once, at
 * build time), so that the service sends the console compressed without compressing anything per request
 * (src/plugins/console.ts). A compressed copy that is not smaller is not written.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'mailroom-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = join(config.root, config.build.outDir);
    },
    closeBundle() {
      const files = readdirSync(outDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && COMPRESSIBLE.test(e.name));
      for (const entry of files) {
        const path = join(entry.parentPath, entry.name);
        const raw = readFileSync(path);
        const br = brotliCompressSync(raw, {
          params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
        });
        const gz = gzipSync(raw, { level: 9 });
        if (br.length < raw.length) writeFileSync(`${path}.br`, br);
        if (gz.length < raw.length) writeFileSync(`${path}.gz`, gz);
      }
    },
  };
}

// The console is served by the service at /admin/ (src/plugins/console.ts); assets get content hashes in their
// names so they can be cached for a year.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/admin/',
  plugins: [react(), precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    reportCompressedSize: true,
  },
});
