// `npm run build`, after tsc: the service's modules (dist/src/app.js and everything it imports,
// the configuration's modules with it) bundled into dist/bundle/: app.cjs and the chunks it
// loads, the lazily imported parts (the broker, the docs, the emulation) in chunks of their own.
// Node then reads a few files instead of some 600 (fastify, TypeBox, pino, ...), which halves the
// module load of a start: on an SD card each file costs. CommonJS, so that main.js can compile
// each file as a vm.Script with V8's code cache (src/service/code-cache.ts).
// main.js loads the bundle when it is newer than dist/src/app.js and falls back to the plain
// modules otherwise, so a tsc-only build never runs stale code.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleCommonJs } from './bundle.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
await bundleCommonJs({ app: path.join(root, 'dist/src/app.js') }, path.join(root, 'dist/bundle'));
