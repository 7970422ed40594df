// Builds the dashboard SPA into ui/dist (served by src/http/dashboard/ui.ts). Preact through the
// automatic JSX runtime; no CDN, no remote fonts: everything ships in the bundle. Text files are
// also written brotli- and gzip-compressed (.br, .gz) for the server to send as they are.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

function precompress(): Plugin {
  return {
    name: 'mailroom-precompress',
    apply: 'build',
    closeBundle() {
      const dist = path.join(import.meta.dirname, 'dist');
      const walk = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
      for (const file of walk(dist).filter((f) => /\.(js|css|html|svg|json)$/.test(f))) {
        const raw = fs.readFileSync(file);
        if (raw.length < 1024) continue;
        fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }));
        fs.writeFileSync(`${file}.gz`, zlib.gzipSync(raw, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  publicDir: 'public',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false, chunkSizeWarningLimit: 300 },
  plugins: [precompress()],
  logLevel: 'warn',
});
