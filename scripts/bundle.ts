// How the service's modules are bundled (scripts/bundle-app.ts), as a function, so that the
// idle bench's floor (scripts/bench/floor-idle.ts) is bundled the same way and the two compare.
import { rmSync } from 'node:fs';
import { build } from 'rolldown';

// Native modules, and packages that read their own files at run time (Swagger UI's assets), stay
// in node_modules; the lazily loaded rest becomes chunks of the bundle.
const EXTERNAL = [
  /^node:/,
  /^better-sqlite3/,
  /^serialport/,
  /^@serialport\//,
  /^i2c-bus/,
  /^onoff/,
  /^@fastify\/swagger-ui/,
  /^selfsigned/,
  /^bufferutil/,
  /^utf-8-validate/,
];

/** Bundles `input` (name -> built ES module) into `dir` as `<name>.cjs` and its chunks; `dir` is emptied first. */
export async function bundleCommonJs(input: Record<string, string>, dir: string): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  await build({
    input,
    platform: 'node',
    external: EXTERNAL,
    logLevel: 'warn',
    // docs.ts imports fastify lazily for its inner instance; the server has it already. Not a problem.
    onLog: (level, log, handler) => void (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT' ? undefined : handler(level, log)),
    output: {
      dir,
      format: 'cjs',
      // As the modules ran before (an ES module is strict), and V8 does no worse with it.
      strict: true,
      entryFileNames: '[name].cjs',
      chunkFileNames: '[name]-[hash].cjs',
      // The drivers in one chunk: the emulators (loaded only in sim mode, each its own chunk) import
      // their chip's driver too, and would otherwise leave every driver a file of its own that a
      // start reads (20 files instead of 9).
      // The small shared modules (src/shared, src/log) in one chunk too: every entry and lazy part
      // uses some of them, which left each a file of its own (13 files at a start instead of 8).
      codeSplitting: {
        groups: [
          { name: 'drivers', test: /[\\/]drivers[\\/](?!sim[\\/])/ },
          { name: 'common', test: /[\\/]src[\\/](shared|log)[\\/]/ },
        ],
      },
      // import() of a package becomes require(): V8 drops a vm.Script's import() callback when it
      // runs from a code cache (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING on Node 20), and those packages are CommonJS.
      dynamicImportInCjs: false,
      minify: { compress: false, mangle: false, codegen: { removeWhitespace: true } },
      charset: 'ascii',
      comments: false,
    },
  });
}
