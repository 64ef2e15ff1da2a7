// The layering is enforced: `npm run check` runs scripts/layers.mjs, which fails on an import
// its table does not allow, or when docs/architecture.md shows another table. Here upward imports
// of every kind, and an edit of the page's table, are planted in a copy of the tree.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const CHECKER = path.join(ROOT, 'scripts/layers.mjs');

function check(root: string) {
  return spawnSync(process.execPath, [CHECKER, root], { encoding: 'utf8', timeout: limit(60000) });
}

t.test('npm run check runs the layer check', async (t) => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  t.match(pkg.scripts.check, /(^|&& )node scripts\/layers\.mjs( |$)/);
});

t.test('an upward import of any kind fails the check, naming the file, the import and the rule', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'edgeblocks-layers-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  for (const dir of ['src', 'drivers', 'web/src', 'docs'])
    cpSync(path.join(ROOT, dir), path.join(root, dir), { recursive: true });
  const clean = check(root);
  t.equal(clean.status, 0, `the copy passes before anything is planted: ${clean.stderr}`);

  const plant = (file: string, text: string) => appendFileSync(path.join(root, file), `\n${text}\n`);
  // The ones the issue named: the runtime importing the store, hardware a block module.
  plant('src/runtime/unsaved.ts', "import { StorageHealth } from '../store/storage-health.js';");
  plant('src/hardware/discovery.ts', "import '../blocks/one-wire-bus.js';");
  // A driver that knows the runtime; a real driver that imports the emulation.
  plant('drivers/onewire/crc.ts', "import type { AnyBlock } from '../../src/runtime/types.js';");
  plant('drivers/i2c/queue.ts', "import { SimHardware } from '../sim/sim-hardware.js';");
  // A dynamic import, a re-export and an `import()` type, upward.
  plant('src/codec/units.ts', "export const later = () => import('../runtime/runtime.js');");
  plant('src/store/db.ts', "export { createApp } from '../app.js';");
  plant('src/shared/json.ts', "export type Cfg = import('../config.js').Config;");
  // Types of config are allowed to hardware; a value is not.
  plant('src/hardware/layer.ts', "import type { Config as Again } from '../config.js';");
  plant('src/hardware/sim-mode.ts', "import { loadConfig } from '../config.js';");
  // The encoding cache is internal to the runtime; the dashboard knows only the public API.
  plant('src/api/blocks.ts', "import { EncodeCache } from '../runtime/encode-cache.js';");
  plant('web/src/api.ts', "import { fromInternal } from '../../src/codec/units.js';");
  // The dashboard may share the portable unit table, which therefore imports nothing of the project.
  plant('web/src/units.ts', "import { userUnit as u2 } from '../../src/codec/unit-conversion.js';");
  plant('src/codec/unit-conversion.ts', "import { MAX_JSON_DEPTH } from '../shared/json.js';");
  // The page's table edited by hand.
  const page = path.join(root, 'docs/architecture.md');
  writeFileSync(
    page,
    readFileSync(page, 'utf8').replace('| fleet | `src/fleet/` | mqtt,', '| fleet | `src/fleet/` | mqtt, runtime,'),
  );
  // A folder the table does not know.
  mkdirSync(path.join(root, 'src/extras'));
  writeFileSync(path.join(root, 'src/extras/thing.ts'), 'export const thing = 1;\n');

  const run = check(root);
  t.equal(run.status, 1, 'the check fails');
  const lines = run.stderr.trim().split('\n');
  const expected: Array<[string, RegExp]> = [
    [
      'runtime -> store',
      /^layers: src\/runtime\/unsaved\.ts:\d+ imports \.\.\/store\/storage-health\.js: runtime -> store is an upward import \(runtime may import codec, log, shared, drivers\)$/,
    ],
    [
      'hardware -> blocks',
      /^layers: src\/hardware\/discovery\.ts:\d+ imports \.\.\/blocks\/one-wire-bus\.js: hardware -> blocks is not allowed/,
    ],
    [
      'drivers -> runtime',
      /^layers: drivers\/onewire\/crc\.ts:\d+ imports .*: drivers -> runtime is an upward import \(drivers may import no other layer\)$/,
    ],
    [
      'drivers -> emulation',
      /^layers: drivers\/i2c\/queue\.ts:\d+ imports \.\.\/sim\/sim-hardware\.js: drivers -> emulation is an upward import/,
    ],
    [
      'import()',
      /^layers: src\/codec\/units\.ts:\d+ imports \.\.\/runtime\/runtime\.js: codec -> runtime is an upward import/,
    ],
    ['export from', /^layers: src\/store\/db\.ts:\d+ imports \.\.\/app\.js: store -> app is an upward import/],
    [
      'import() type',
      /^layers: src\/shared\/json\.ts:\d+ imports \.\.\/config\.js: shared -> config is an upward import/,
    ],
    [
      'a value of config',
      /^layers: src\/hardware\/sim-mode\.ts:\d+ imports \.\.\/config\.js: hardware -> config is an upward import \(.*; types of config\)$/,
    ],
    [
      'internal',
      /^layers: src\/api\/blocks\.ts:\d+ imports \.\.\/runtime\/encode-cache\.js: src\/runtime\/encode-cache\.ts is internal to runtime/,
    ],
    ['web', /^layers: web\/src\/api\.ts:\d+ imports \.\.\/\.\.\/src\/codec\/units\.js: web -> codec is not allowed/],
    [
      'portable',
      /^layers: src\/codec\/unit-conversion\.ts:\d+ imports \.\.\/shared\/json\.js: a portable file imports nothing of the project$/,
    ],
    ['no layer', /^layers: src\/extras\/thing\.ts: in no layer/],
    ['the page', /^layers: docs\/architecture\.md: the table of layers is not the one in scripts\/layers\.mjs/],
  ];
  for (const [what, pattern] of expected)
    t.ok(
      lines.some((l) => pattern.test(l)),
      what,
    );
  t.equal(lines.at(-1), `layers: ${expected.length} problem(s) against the table in scripts/layers.mjs`, run.stderr);
  t.notOk(
    lines.some((l) => l.includes('web/src/units.ts')),
    'the dashboard may import a portable file',
  );
  t.notOk(
    lines.some((l) => l.includes('src/hardware/layer.ts')),
    'an import of types of config from hardware is allowed',
  );
});
