// The settings the service's process runs with, written once: the environment and the node
// flags. `npm run flags` writes them into every place that starts it: the CLI's shebang (the
// first line of src/main.ts, which tsc keeps in dist/src/main.js: the bin, as a user runs it),
// `npm start` and `npm run bench` (package.json) and the systemd unit.
// test/deploy/heap-flags.test.ts fails when one of them differs from what this file makes.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * glibc gives each thread that allocates (libuv's pool, V8's helpers) an arena of its own; two
 * are enough for this process and keep ~4 MB of idle RSS off. Plain `node` cannot set it for
 * itself: it must be in the environment the process starts with.
 */
export const RUNTIME_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };

/**
 * V8's young generation grows to 32 MB under load and stays there; capped at 2 MB per
 * semi-space, idle RSS is ~25 MB lower at no measurable cost per request (docs/performance.md).
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2'];

const assignments = () => Object.entries(RUNTIME_ENV).map(([k, v]) => `${k}=${v}`);

/** The first line of src/main.ts. */
export function shebang(): string {
  return `#!/usr/bin/env -S ${[...assignments(), 'node', ...NODE_FLAGS].join(' ')}`;
}

/** `npm start` and `npm run bench`. */
export function npmScripts(): { start: string; bench: string } {
  return {
    start: [...assignments(), 'node', ...NODE_FLAGS, 'dist/src/main.js'].join(' '),
    // The bench process runs with the service's young generation too (scripts/bench/side.ts says why).
    bench: ['npm run build &&', 'node', '--expose-gc', ...NODE_FLAGS, 'dist/scripts/bench.js'].join(' '),
  };
}

const UNIT_BEGIN = '# Runtime flags (idle memory; why: scripts/runtime-flags.ts), written by npm run flags:';
const UNIT_END = '# End of the runtime flags.';

/** The lines of the systemd unit between its markers, the markers included. */
export function unitLines(): string[] {
  return [
    UNIT_BEGIN,
    `Environment=NODE_OPTIONS=${NODE_FLAGS.join(' ')}`,
    ...assignments().map((a) => `Environment=${a}`),
    UNIT_END,
  ];
}

export const FILES = {
  main: 'src/main.ts',
  pkg: 'package.json',
  unit: 'systemd/edgeblocks.service',
} as const;

/** The three files as they must read, from their current text. Throws when a place to write is missing. */
export function withFlags(current: Record<keyof typeof FILES, string>): Record<keyof typeof FILES, string> {
  const main = current.main.replace(/^#!.*$/m, shebang());
  if (!current.main.startsWith('#!')) throw new Error(`${FILES.main} has no shebang line`);
  let pkg = current.pkg;
  for (const [name, command] of Object.entries(npmScripts())) {
    const line = new RegExp(`^(\\s*"${name}": )".*"(,?)$`, 'm');
    if (!line.test(pkg)) throw new Error(`${FILES.pkg} has no "${name}" script`);
    pkg = pkg.replace(line, (_, head: string, comma: string) => `${head}${JSON.stringify(command)}${comma}`);
  }
  const lines = current.unit.split('\n');
  const begin = lines.findIndex((l) => l.startsWith(UNIT_BEGIN.slice(0, 16)));
  const end = lines.indexOf(UNIT_END);
  if (begin < 0 || end < begin)
    throw new Error(`${FILES.unit} has no runtime flags block (${UNIT_BEGIN} ... ${UNIT_END})`);
  lines.splice(begin, end - begin + 1, ...unitLines());
  return { main, pkg, unit: lines.join('\n') };
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The checkout, from scripts/ or (built) dist/scripts/. */
const ROOT = path.resolve(HERE, path.basename(path.dirname(HERE)) === 'dist' ? '../..' : '..');

export function readFiles(root = ROOT): Record<keyof typeof FILES, string> {
  const read = (f: string) => readFileSync(path.join(root, f), 'utf8');
  return { main: read(FILES.main), pkg: read(FILES.pkg), unit: read(FILES.unit) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const current = readFiles();
  const next = withFlags(current);
  for (const key of Object.keys(FILES) as Array<keyof typeof FILES>) {
    if (next[key] === current[key]) continue;
    writeFileSync(path.join(ROOT, FILES[key]), next[key]);
    console.log(`wrote ${FILES[key]}`);
  }
}
