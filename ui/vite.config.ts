// Builds the dashboard SPA into ui/dist (served by src/http/dashboard/ui.ts). Preact through the
// automatic JSX runtime; no CDN, no remote fonts: everything ships in the bundle.
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  publicDir: 'public',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false, chunkSizeWarningLimit: 300 },
  logLevel: 'warn',
});
