// `npm run build`, after tsc: the service's modules (dist/src/app.js and everything it imports,
// the configuration's modules with it) bundled into dist/bundle/: app.cjs and the chunks it
// loads, the lazily imported parts (the broker, the docs, the emulation) in chunks of their own.
// Node then reads a few files instead of some 600 (fastify, TypeBox, pino, ...), which halves the
// module load of a start: on an SD card each file costs. CommonJS, so that main.js can compile
// each file as a vm.Script with V8's code cache (src/service/code-cache.ts).
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
    format: 'cjs',
    // As the modules ran before (an ES module is strict), and V8 does no worse with it.
    strict: true,
    entryFileNames: '[name].cjs',
    chunkFileNames: '[name]-[hash].cjs',
    // import() of a package becomes require(): V8 drops a vm.Script's import() callback when it
    // runs from a code cache (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING on Node 20), and those packages are CommonJS.
    dynamicImportInCjs: false,
    minify: { compress: false, mangle: false, codegen: { removeWhitespace: true } },
    charset: 'ascii',
    comments: false,
  },
});
