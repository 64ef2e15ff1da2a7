// Builds the dashboard into dist/web, which edgeblocks serves at `/`. Everything is bundled
// (no CDN, no external fonts) so the page works on a LAN without internet.
// `--ssr src/prepaint.ts` builds the prepaint (the overview as static HTML, which the service
// puts into index.html) for Node into dist/web-prepaint/prepaint.cjs, outside the served files.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig(({ isSsrBuild }) => ({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL(isSsrBuild ? '../dist/web-prepaint' : '../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: isSsrBuild ? 'node20' : 'es2020',
    chunkSizeWarningLimit: 300,
    ...(isSsrBuild && { rollupOptions: { output: { format: 'cjs' as const, entryFileNames: '[name].cjs' } } }),
  },
  server: { proxy: { '^/(?!@|src|node_modules).+': 'http://localhost:5000' } },
}));
