#!/usr/bin/env node
// @ts-check
// The layers of the code and the imports allowed between them: the one place this rule is
// written. `npm run check` runs this file (node scripts/layers.mjs), which reads every import of
// src/, drivers/ and web/src/ (layers-imports.mjs, with TypeScript's parser: static,
// `export ... from`, `import()`, `import('x').T` types) and fails on one the table does not
// allow, or when the table of layers in docs/architecture.md is not this one
// (`node scripts/layers.mjs --doc` writes it). It is plain JavaScript so that the check needs no
// build; tsconfig.check.json type-checks it all the same.
// test/structure/layers.test.ts plants upward imports in a copy of the tree and sees it fail.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importsOf, resolve, sources } from './layers-imports.mjs';

export { importsOf };

/**
 * @typedef {object} Layer
 * @property {string} name
 * @property {string[]} paths files (`src/config.ts`) or folders (`src/runtime/`) relative to the
 *   checkout; a file belongs to the layer with the longest path that holds it
 * @property {string[]} imports the layers its files may import; only layers listed above it
 * @property {string[]} [types] layers it may import types from (`import type`, erased when
 *   compiled), above it or not
 * @property {string[]} [lazy] layers it may load only when called (`import()`, and `import type`):
 *   code that is not loaded unless used, as a chip definition's emulator in sim mode
 * @property {string[]} [internal] files that only the layer's own files may import
 * @property {string[]} [portable] files of the layer every layer may import, the dashboard too:
 *   pure code with no import of its own (checked), so the service and the page share one rule
 * @property {string} rule the rule of the layer, in words (docs/architecture.md shows them)
 */

/** Bottom first: a layer may import only layers listed before it (and itself). */
/** @type {Layer[]} */
export const LAYERS = [
  {
    name: 'drivers',
    paths: ['drivers/'],
    imports: [],
    lazy: ['emulation'],
    portable: ['drivers/json-number.ts', 'drivers/quoted-text.ts'],
    rule: "Device protocols over small interfaces (OneWireBus, I2cBus, GpioBackend, SerialLink); they know nothing of blocks, the runtime or anything in src/. A chip's definition (drivers/i2c/chips.ts, drivers/onewire/families.ts) names its emulator, loaded only in sim mode.",
  },
  {
    name: 'emulation',
    paths: ['drivers/sim/'],
    imports: ['drivers'],
    rule: 'Emulated chips, buses and a thermal plant behind the same interfaces, so tests run the real drivers; no driver imports them.',
  },
  {
    name: 'shared',
    paths: ['src/shared/'],
    imports: [],
    portable: ['src/shared/driven.ts', 'src/shared/duration.ts', 'src/shared/wall-set.ts'],
    rule: 'The bottom of src/: limits, JSON with size checks, durations, errors a user fixes.',
  },
  {
    name: 'log',
    paths: ['src/log.ts', 'src/log/'],
    imports: ['shared'],
    rule: 'pino, its pretty printer, rate-limited warnings.',
  },
  {
    name: 'codec',
    paths: ['src/codec/'],
    imports: ['shared'],
    portable: ['src/codec/unit-conversion.ts'],
    rule: 'Field tables, units and their conversion, encoding and decoding of block data: pure functions of the field tables.',
  },
  {
    name: 'runtime',
    paths: ['src/runtime/'],
    imports: ['codec', 'log', 'shared', 'drivers'],
    internal: ['src/runtime/encode-cache.ts', 'src/runtime/reads.ts', 'src/runtime/block-json.ts'],
    rule: 'The block container: create/read/write/delete, the scheduler, links, claims, the one read (its encoding cache stays inside). It defines the contracts it needs (BlockPersistence, the hardware services, the link interfaces) and imports no implementation of them.',
  },
  {
    name: 'blocks',
    paths: ['src/blocks/'],
    imports: ['runtime', 'codec', 'log', 'shared', 'drivers'],
    portable: ['src/blocks/shared/profile.ts', 'src/blocks/shared/sequence-lines.ts'],
    rule: 'One file per block type: a field table and an update function (defineBlock). Hardware is reached through ctx.hardware, never imported.',
  },
  {
    name: 'store',
    paths: ['src/store/'],
    imports: ['runtime', 'codec', 'log', 'shared', 'drivers'],
    rule: "SQLite: block records (the runtime's BlockPersistence), datastore documents, backups, the data dir. No fastify, no MQTT.",
  },
  {
    name: 'hardware',
    paths: ['src/hardware/'],
    imports: ['runtime', 'emulation', 'drivers', 'codec', 'log', 'shared'],
    types: ['config'],
    rule: "Drivers put behind the runtime's hardware services: masters, pollers, GPIO lines, discovery. Names block types by their type name and imports no block.",
  },
  {
    name: 'service',
    paths: ['src/service/'],
    imports: ['runtime', 'blocks', 'store', 'log', 'shared'],
    rule: 'Running as a system service: systemd notify and watchdog, backup schedule, code cache, control on/off.',
  },
  {
    name: 'api',
    paths: ['src/api/'],
    imports: ['runtime', 'store', 'emulation', 'drivers', 'codec', 'log', 'shared'],
    rule: 'fastify: the REST routes of the block, system and datastore APIs, the guards, errors, docs.',
  },
  {
    name: 'mqtt',
    paths: ['src/mqtt/'],
    imports: ['api', 'service', 'runtime', 'codec', 'log', 'shared'],
    types: ['config'],
    rule: 'The bus: connection, embedded broker, state/history emission, patches, the block API over MQTT, /eventbus.',
  },
  {
    name: 'homeassistant',
    paths: ['src/homeassistant/'],
    imports: ['mqtt', 'runtime', 'codec', 'log', 'shared'],
    rule: 'Home Assistant MQTT discovery of the entities the block types declare.',
  },
  {
    name: 'history',
    paths: ['src/history/'],
    imports: ['api', 'mqtt', 'store', 'drivers', 'log', 'shared'],
    types: ['config'],
    rule: 'The history service: ingest from the bus, stores (embedded, VictoriaMetrics), the query API.',
  },
  {
    name: 'auth',
    paths: ['src/auth/'],
    imports: ['api', 'mqtt', 'store', 'log', 'shared'],
    rule: 'Users, sessions, roles, the login routes and the guard.',
  },
  {
    name: 'fleet',
    paths: ['src/fleet/'],
    imports: ['mqtt', 'log', 'shared'],
    rule: 'The other controllers on the bus.',
  },
  {
    name: 'alerts',
    paths: ['src/alerts/'],
    imports: ['api', 'mqtt', 'homeassistant', 'history', 'runtime', 'store', 'codec', 'drivers', 'log', 'shared'],
    rule: 'Conditions on the runtime, alert state, the outbox, the channels (each a schema and a create).',
  },
  {
    name: 'config',
    paths: ['src/config.ts', 'src/config-schema.ts', 'src/cli-args.ts', 'src/installed-config.ts'],
    imports: ['alerts', 'api', 'service', 'drivers', 'shared'],
    rule: "The one config schema, composed of the parts' own schemas (alerts, gpio lines) and checked with their own rules; the layers below read `type Config` only.",
  },
  {
    name: 'doctor',
    paths: ['src/doctor/'],
    imports: ['config', 'alerts', 'history', 'hardware', 'store', 'emulation', 'drivers', 'log', 'shared'],
    rule: '`edgeblocks doctor`: a self-test of the system, the interfaces, each bus and the outputs, through the drivers; beside a running service it only reads its status.',
  },
  {
    name: 'app',
    paths: ['src/app.ts', 'src/app/'],
    imports: [
      'config',
      'alerts',
      'fleet',
      'auth',
      'history',
      'homeassistant',
      'mqtt',
      'api',
      'service',
      'hardware',
      'store',
      'blocks',
      'runtime',
      'codec',
      'log',
      'shared',
      'drivers',
    ],
    rule: 'The composition root: builds the subsystems and their order of start and stop.',
  },
  {
    name: 'failsafe',
    paths: ['src/failsafe/'],
    imports: ['config', 'hardware', 'drivers', 'log', 'shared'],
    rule: 'edgeblocks-failsafe (ExecStopPost): every configured output to its safe state, without the runtime.',
  },
  {
    name: 'cli',
    paths: ['src/main.ts', 'src/auth/cli.ts'],
    imports: ['app', 'doctor', 'config', 'auth', 'service', 'store', 'log', 'shared'],
    rule: 'The commands: `edgeblocks` (main.ts) and `edgeblocks user`.',
  },
  {
    name: 'web',
    paths: ['web/src/'],
    imports: [],
    rule: "The dashboard: knows only the public API (REST, the OpenAPI document, the event stream), never the service's modules (only the portable ones: the unit table, the duration parser, the rule of a wall clock never set, a profile's setting between its points and the block names of a Sequence line).",
  },
];

/** @param {string} file a path relative to the checkout, with `/` */
export function layerOf(file) {
  /** @type {{ layer: Layer, length: number } | null} */
  let best = null;
  for (const layer of LAYERS)
    for (const p of layer.paths)
      if ((p.endsWith('/') ? file.startsWith(p) : file === p) && (!best || p.length > best.length))
        best = { layer, length: p.length };
  return best?.layer ?? null;
}

/** The problems of the table itself: unknown names, an import of a layer not below. */
export function tableProblems() {
  const problems = [];
  const seen = new Map(LAYERS.map((l, i) => [l.name, i]));
  for (const [i, layer] of LAYERS.entries()) {
    for (const name of layer.imports) {
      const at = seen.get(name);
      if (at === undefined) problems.push(`layer ${layer.name} imports an unknown layer ${name}`);
      else if (at >= i) problems.push(`layer ${layer.name} imports ${name}, which is not below it in the table`);
    }
    for (const name of layer.types ?? [])
      if (!seen.has(name)) problems.push(`layer ${layer.name} imports types of an unknown layer ${name}`);
    for (const name of layer.lazy ?? [])
      if (!seen.has(name)) problems.push(`layer ${layer.name} loads an unknown layer ${name}`);
  }
  return problems;
}

/** The page that shows the table, between these two lines. */
export const DOC = 'docs/architecture.md';
const DOC_BEGIN = '<!-- layers: written by `node scripts/layers.mjs --doc` from its table; edit the table there -->';
const DOC_END = '<!-- end of layers -->';

/** The table as docs/architecture.md shows it: the top layer first. */
export function layersMarkdown() {
  const code = (/** @type {string} */ p) => `\`${p}\``;
  const rows = [...LAYERS].reverse().map((l) => {
    const may = l.imports.length ? l.imports.join(', ') : '(none)';
    const types =
      (l.types?.length ? `; types of ${l.types.join(', ')}` : '') +
      (l.lazy?.length ? `; loaded when called: ${l.lazy.join(', ')}` : '');
    const internal = l.internal?.length ? ` Internal: ${l.internal.map(code).join(', ')}.` : '';
    const portable = l.portable?.length
      ? ` Portable (any layer, the dashboard too): ${l.portable.map(code).join(', ')}.`
      : '';
    return `| ${l.name} | ${l.paths.map(code).join(' ')} | ${may}${types} | ${l.rule}${internal}${portable} |`;
  });
  return [DOC_BEGIN, '', '| layer | files | may import | rule |', '|---|---|---|---|', ...rows, '', DOC_END].join('\n');
}

/**
 * The page with the table as written now, or null when it has no place for it.
 * @param {string} page
 */
export function withLayersTable(page) {
  const begin = page.indexOf(DOC_BEGIN);
  const end = page.indexOf(DOC_END);
  if (begin < 0 || end < begin) return null;
  return page.slice(0, begin) + layersMarkdown() + page.slice(end + DOC_END.length);
}

/** The folders whose files are checked. */
export const CHECKED = ['src', 'drivers', 'web/src'];

/**
 * Every import in the checked folders of `root` that the table does not allow.
 * @param {string} root
 */
export function checkLayers(root) {
  const problems = tableProblems();
  const order = new Map(LAYERS.map((l, i) => [l.name, i]));
  let files = 0;
  let imports = 0;
  for (const file of CHECKED.flatMap((dir) => sources(root, dir, []))) {
    files++;
    const from = layerOf(file);
    if (!from) {
      problems.push(`${file}: in no layer (add its folder to LAYERS in scripts/layers.mjs)`);
      continue;
    }
    const portable = from.portable?.includes(file);
    for (const imp of importsOf(file, readFileSync(path.join(root, file), 'utf8'))) {
      if (!imp.specifier.startsWith('.')) continue; // a package or node: built-in
      imports++;
      if (portable) {
        problems.push(`${file}:${imp.line} imports ${imp.specifier}: a portable file imports nothing of the project`);
        continue;
      }
      const target = resolve(root, file, imp.specifier);
      const to = layerOf(target);
      const where = `${file}:${imp.line} imports ${imp.specifier}`;
      if (!to) {
        problems.push(`${where}: ${target} is in no layer`);
        continue;
      }
      if (to === from || to.portable?.includes(target)) continue;
      const internal = to.internal?.includes(target);
      if (internal) {
        problems.push(`${where}: ${target} is internal to ${to.name} (use what ${to.name} exports)`);
        continue;
      }
      if (from.imports.includes(to.name)) continue;
      if (imp.typeOnly && from.types?.includes(to.name)) continue;
      if ((imp.typeOnly || imp.dynamic) && from.lazy?.includes(to.name)) continue;
      const direction = (order.get(to.name) ?? 0) > (order.get(from.name) ?? 0) ? 'an upward import' : 'not allowed';
      problems.push(
        `${where}: ${from.name} -> ${to.name} is ${direction}` +
          ` (${from.name} may import ${from.imports.join(', ') || 'no other layer'}` +
          `${from.types?.length ? `; types of ${from.types.join(', ')}` : ''})`,
      );
    }
  }
  const doc = path.join(root, DOC);
  if (existsSync(doc)) {
    const page = readFileSync(doc, 'utf8');
    const current = withLayersTable(page);
    if (current === null) problems.push(`${DOC}: no table of layers (${DOC_BEGIN} ... ${DOC_END})`);
    else if (current !== page)
      problems.push(`${DOC}: the table of layers is not the one in scripts/layers.mjs (node scripts/layers.mjs --doc)`);
  }
  return { problems, files, imports };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  const writeDoc = args.includes('--doc');
  const given = args.find((a) => !a.startsWith('--'));
  const root = path.resolve(given ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  if (writeDoc) {
    const page = readFileSync(path.join(root, DOC), 'utf8');
    const next = withLayersTable(page);
    if (next === null) {
      console.error(`layers: ${DOC} has no place for the table (${DOC_BEGIN} ... ${DOC_END})`);
      process.exit(1);
    }
    if (next !== page) writeFileSync(path.join(root, DOC), next);
  }
  const { problems, files, imports } = checkLayers(root);
  if (problems.length) {
    for (const p of problems) console.error(`layers: ${p}`);
    console.error(`layers: ${problems.length} problem(s) against the table in scripts/layers.mjs`);
    process.exit(1);
  }
  console.log(`layers: ${imports} imports in ${files} files follow scripts/layers.mjs`);
}
