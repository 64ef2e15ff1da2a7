// `npm run build`, after tsc: the service's modules (dist/src/app.js and everything it imports at
// start, the configuration's modules with it) bundled into dist/bundle/. Node then reads a few
// files instead of some 600 (fastify, TypeBox, pino, ...), which halves the module load of a
// start: on an SD card each file costs.
// main.js loads the bundle when it is newer than dist/src/app.js and falls back to the plain
// modules otherwise, so a tsc-only build never runs stale code.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// Native modules, and packages that read their own files at run time (Swagger UI's assets), stay
// in node_modules; the lazily loaded rest becomes chunks of the bundle.
const EXTERNAL = [/^node:/, /^better-sqlite3/, /^serialport/, /^@serialport\//, /^i2c-bus/, /^onoff/, /^@fastify\/swagger-ui/, /^selfsigned/, /^bufferutil/, /^utf-8-validate/];

rmSync(path.join(root, 'dist/bundle'), { recursive: true, force: true });
await build({
  input: { app: path.join(root, 'dist/src/app.js') },
  platform: 'node',
  external: EXTERNAL,
  logLevel: 'warn',
  // docs.ts imports fastify lazily for its inner instance; the server has it already. Not a problem.
  onLog: (level, log, handler) => void (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT' ? undefined : handler(level, log)),
  output: {
    dir: path.join(root, 'dist/bundle'),
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
    minify: { compress: false, mangle: false, codegen: { removeWhitespace: true } },
    charset: 'ascii',
    comments: false,
  },
});
