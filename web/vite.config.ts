// Builds the dashboard into dist/web, which edgeblocks serves at `/`. Everything is bundled
// (no CDN, no external fonts) so the page works on a LAN without internet.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2020',
    chunkSizeWarningLimit: 300,
  },
  server: { proxy: { '^/(?!@|src|node_modules).+': 'http://localhost:5000' } },
});
