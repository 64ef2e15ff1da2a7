// tags: slow (the built CLI started)
// The test suite's own variables (its knobs: the start-limit multiplier, the generators' seeds)
// are all named under EDGEBLOCKS_TEST_, a prefix the service leaves to the tests. A developer
// who exports one in their shell, as the test files say to do to repeat a generated run, can
// still start the service: EDGEBLOCKS_VALUES_SEED made it refuse to start ("unknown variable").
// The knobs are found in the sources (every EDGEBLOCKS_ variable the tests and scripts read that
// is not a setting), so a knob added later under another name fails here.
import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { SETTINGS, TEST_ENV_PREFIX } from '../../src/config-schema.js';
import { startCli } from '../helpers/cli.js';
import { ROOT } from '../helpers/root.js';

const SETTING_VARIABLES = new Set(SETTINGS.flatMap((s) => (s.schema.env ? [s.schema.env] : [])));

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|js|mjs|sh)$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Every EDGEBLOCKS_ variable the tests and scripts read (process.env, a shell's $NAME) that is not a setting. */
function testKnobs(): Map<string, string> {
  const found = new Map<string, string>();
  const reads = /process\.env\.(EDGEBLOCKS_\w+)|process\.env\[['"`](EDGEBLOCKS_\w+)|\$\{?(EDGEBLOCKS_\w+)/g;
  for (const file of [...sources('test'), ...sources('scripts')])
    for (const m of readFileSync(file, 'utf8').matchAll(reads)) {
      const name = m[1] ?? m[2] ?? m[3]!;
      if (!SETTING_VARIABLES.has(name) && !found.has(name)) found.set(name, path.relative(ROOT, file));
    }
  return found;
}

const knobs = testKnobs();

t.test('the tests read their knobs, and every one is named under EDGEBLOCKS_TEST_', async (t) => {
  // The three known today; the scan must at least find them (under some name) to mean anything.
  t.ok(knobs.size >= 3, `knobs found: ${[...knobs.keys()].join(', ')}`);
  t.equal(TEST_ENV_PREFIX, 'EDGEBLOCKS_TEST_', 'the prefix the service leaves to the tests');
  for (const [name, file] of knobs)
    t.ok(name.startsWith(TEST_ENV_PREFIX), `${name} (read in ${file}) is named under ${TEST_ENV_PREFIX}`);
  const settings = [...SETTING_VARIABLES].filter((name) => name.startsWith(TEST_ENV_PREFIX));
  t.same(settings, [], `no setting's variable is under ${TEST_ENV_PREFIX} (the prefix is the tests' alone)`);
});

t.test('the built service starts with every test knob exported', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-test-knobs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // A value each knob takes (a multiplier >= 1, a seed); the service must not look at them.
  const env = Object.fromEntries([...knobs.keys()].map((name) => [name, '1']));
  let cli: Awaited<ReturnType<typeof startCli>> | undefined;
  try {
    cli = await startCli(['--hardware', 'sim', '--data-dir', path.join(dir, 'data'), '--mqtt-port', '0'], env, t);
  } catch (e) {
    t.fail(`the service did not start with ${Object.keys(env).join(', ')} exported: ${(e as Error).message}`);
    return;
  }
  const res = await fetch(`${cli.base}/edge-one/system/status`);
  t.equal(res.status, 200, 'the service answers');
  t.notMatch(cli.output(), /unknown variable/, 'no variable refused');
});
