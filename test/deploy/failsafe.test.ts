// edgeblocks-failsafe as `npm run build` compiled it, run as a child process against fake
// sysfs GPIO trees: outputs left on by a "crash" end up at their safe physical level.
// tags: slow (the failsafe command, run some forty times)
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { makeGpioRoot, PI4_CHIPS, PI5_CHIPS } from '../drivers/gpio-fixtures.js';
import { limit } from '../helpers/limits.js';
import { ROOT } from '../helpers/root.js';

const repo = ROOT;
const out = mkdtempSync(join(tmpdir(), 'eb-failsafe-build-'));
t.teardown(() => rmSync(out, { recursive: true, force: true }));

// The command as `npm run build` compiled it, with only what it imports (followed from its
// import statements) copied beside it: it must run without the rest of the service.
const imports = /(?:\bfrom|^\s*import|\bimport\()\s*['"](\.{1,2}\/[^'"]+)['"]/gm;
const copied: string[] = [];
const missing: string[] = [];
function copyWithImports(file: string): void {
  const rel = relative(join(repo, 'dist'), file);
  if (copied.includes(rel)) return;
  if (!existsSync(file)) {
    missing.push(rel);
    return;
  }
  copied.push(rel);
  mkdirSync(dirname(join(out, rel)), { recursive: true });
  const code = readFileSync(file, 'utf8');
  writeFileSync(join(out, rel), code);
  for (const m of code.matchAll(imports)) copyWithImports(resolve(dirname(file), m[1]!));
}
copyWithImports(join(repo, 'dist/src/failsafe/index.js'));
writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
// As installed: the package's dependencies (the config schema's typebox) next to the command.
symlinkSync(join(repo, 'node_modules'), join(out, 'node_modules'));
const failsafe = join(out, 'src/failsafe/index.js');

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [failsafe, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, ...env },
    timeout: limit(15000),
    killSignal: 'SIGKILL',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function writeConfig(config: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'eb-failsafe-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'config.json');
  writeFileSync(path, typeof config === 'string' ? config : JSON.stringify(config));
  return path;
}

const level = (root: string, n: number) => readFileSync(join(root, `gpio${n}`, 'value'), 'utf8').trim();
const direction = (root: string, n: number) => readFileSync(join(root, `gpio${n}`, 'direction'), 'utf8').trim();

const GPIO = [
  { name: 'heater', line: 17, direction: 'out', activeLow: true },
  { name: 'cooler', line: 27, direction: 'out', activeLow: true, safeState: false },
  { name: 'fan', line: 22, direction: 'out' },
  { name: 'pump', line: 23, direction: 'out', activeLow: true, safeState: true },
  { name: 'door', line: 5, direction: 'in' },
];

t.test('the command is built, and every module it imports is', async (t) => {
  t.same(missing, [], 'no import of the command is missing from dist (npm run build first)');
  t.ok(copied.includes('src/failsafe/index.js'), `${copied.length} modules`);
  t.notOk(
    copied.some((f) => f.startsWith('src/app') || f.startsWith('src/runtime/') || f.startsWith('src/api/')),
    'none of the service: not the app, the runtime or the API',
  );
});

t.test('every output goes to its safe physical level (Pi 5, base 571)', async (t) => {
  // What a crash leaves: both active-low relays ON (low), the fan ON (high), the pump OFF.
  const root = makeGpioRoot(PI5_CHIPS, { 588: '0', 598: '0', 593: '1', 594: '1', 576: '1' });
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const result = run(['--config', writeConfig({ hardware: 'linux', gpio: GPIO }), '--gpio-root', root]);
  t.equal(result.code, 0, result.stderr);
  t.equal(result.stderr, '');
  t.equal(level(root, 588), '1', 'heater relay released (active-low: high)');
  t.equal(level(root, 598), '1', 'cooler relay released');
  t.equal(level(root, 593), '0', 'fan off (active-high: low)');
  t.equal(level(root, 594), '0', 'pump safe state is ON: active-low pin low');
  t.equal(direction(root, 588), 'high', 'set as an output at the safe level in one write');
  t.equal(level(root, 576), '1', 'input untouched');
  t.equal(direction(root, 576), 'in');
  t.equal(
    result.stdout
      .trim()
      .split('\n')
      .filter((l) => l.includes('(line ')).length,
    4,
    'one line per output',
  );
  t.match(result.stdout, /heater \(line 17\) inactive, pin high/);
  t.match(result.stdout, /pump \(line 23\) active, pin low/);
});

t.test('a line that cannot be driven fails the run; the others are still made safe', async (t) => {
  const root = makeGpioRoot(PI4_CHIPS, { 529: '0' }); // GPIO27 (539) never appears after export
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const config = writeConfig({ gpio: [GPIO[0], GPIO[1], { name: 'broken', line: 'x', direction: 'out' }] });
  const result = run(['--config', config, '--gpio-root', root]);
  t.equal(result.code, 1);
  t.equal(level(root, 529), '1', 'heater made safe anyway');
  const problems = result.stderr.trim().split('\n');
  t.equal(problems.length, 2, result.stderr);
  t.match(problems[0], /^failsafe: gpio\[2\]\.line: must be an integer 0-127, got "x"$/);
  t.match(problems[1], /^failsafe: GPIO "cooler" \(line 27, sysfs 539\): .*did not become writable after export/);
  t.notMatch(result.stderr, /\n\s+at /, 'no stack trace');
});

t.test('config and chip problems: one line, exit 1, never a stack trace', async (t) => {
  const root = makeGpioRoot(PI5_CHIPS);
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const cases: Array<[string[], RegExp]> = [
    [[], /--config FILE is required/],
    [['--config', '/nonexistent/config.json'], /cannot read config \/nonexistent\/config\.json: ENOENT/],
    [['--config', writeConfig('{ not json')], /is not valid JSON/],
    [
      ['--config', writeConfig({ gpio: GPIO }), '--gpio-root', join(root, 'nope')],
      /not readable \(ENOENT\).*4 output\(s\) NOT made safe/,
    ],
    [
      ['--config', writeConfig({ gpio: GPIO }), '--gpio-root', root, '--chip-label', 'pinctrl-bcm2711'],
      /no gpiochip with label "pinctrl-bcm2711"/,
    ],
    [['--config', writeConfig({ gpio: 'heater' })], /gpio: must be a list of line objects/],
    [['--bogus'], /--bogus: unknown option/],
  ];
  for (const [args, expected] of cases) {
    const result = run(args);
    t.equal(result.code, 1, `exit 1 for ${args.join(' ')}`);
    t.match(result.stderr, expected);
    t.equal(result.stderr.trim().split('\n').length, 1, `one line: ${result.stderr}`);
  }
});

t.test('the chip label can come from the config (gpioChipLabel)', async (t) => {
  const root = makeGpioRoot(PI4_CHIPS, { 571: '0' });
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const config = writeConfig({
    gpioChipLabel: 'raspberrypi-exp-gpio',
    gpio: [{ name: 'led', line: 1, direction: 'out', activeLow: true }],
  });
  const result = run(['--config', config, '--gpio-root', root]);
  t.equal(result.code, 0, result.stderr);
  t.equal(level(root, 571), '1', 'line 1 of the expander chip (base 570), not of the header chip');
});

t.test(
  "the service's EDGEBLOCKS_ variables (a drop-in's, which ExecStopPost gets too) win over the file",
  async (t) => {
    const root = makeGpioRoot(PI4_CHIPS, { 571: '0' });
    t.teardown(() => rmSync(root, { recursive: true, force: true }));
    const config = writeConfig({
      hardware: 'linux',
      gpioChipLabel: 'pinctrl-bcm2711',
      gpio: [{ name: 'led', line: 1, direction: 'out', activeLow: true }],
    });
    const label = run(['--config', config, '--gpio-root', root], {
      EDGEBLOCKS_GPIO_CHIP_LABEL: 'raspberrypi-exp-gpio',
    });
    t.equal(label.code, 0, label.stderr);
    t.equal(level(root, 571), '1', 'the chip the service drove (the variable), not the one the file names');
    // A DS2480B adapter the service was given in a variable is opened too: here it is not there.
    const serial = run(['--config', writeConfig({ hardware: 'linux', gpio: [] }), '--timeout', '500'], {
      EDGEBLOCKS_SERIAL_PORTS: '/nonexistent/ttyUSB9',
      EDGEBLOCKS_W1_ROOT: '/nonexistent/w1',
      EDGEBLOCKS_I2C_BUSES: '/dev/i2c-250',
    });
    t.equal(serial.code, 1, serial.stdout + serial.stderr);
    t.match(serial.stderr, /serialPorts: .*\/nonexistent\/ttyUSB9/);
    const bad = run(['--config', writeConfig({ hardware: 'linux', gpio: [] })], {
      EDGEBLOCKS_I2C_BUSES: '/dev/i2c-250',
      EDGEBLOCKS_W1_ROOT: '/nonexistent/w1',
      EDGEBLOCKS_PORT: 'abc',
    });
    t.equal(bad.code, 1, 'a variable the service refuses is reported as a file value is');
    t.match(bad.stderr, /configuration error: port \(env EDGEBLOCKS_PORT\)/);
    const sim = run(['--config', writeConfig({ hardware: 'linux', gpio: [] })], { EDGEBLOCKS_HARDWARE: 'sim' });
    t.equal(sim.code, 0, sim.stderr);
    t.match(sim.stdout, /hardware is "sim"/);
  },
);

t.test('nothing to do is success', async (t) => {
  const none = run(['--config', writeConfig({ gpio: [{ name: 'door', line: 5, direction: 'in' }] })]);
  t.equal(none.code, 0, none.stderr);
  t.match(none.stdout, /no GPIO outputs configured/);
  const sim = run(['--config', writeConfig({ hardware: 'sim', gpio: GPIO })]);
  t.equal(sim.code, 0, sim.stderr);
  t.match(sim.stdout, /hardware is "sim"/);
});

// Issue 24.6: the failsafe, the service's config loader and the sim read a gpio line with one
// schema, so a config the service runs with is one the failsafe makes safe (a line without
// `direction` is an output for all three), and what one refuses the others refuse.
const LINE_DOCUMENTS: Array<[string, unknown[], boolean]> = [
  [
    'an output with every key',
    [{ name: 'heater', line: 17, direction: 'out', activeLow: true, safeState: false }],
    true,
  ],
  ['an output without direction (an output by default)', [{ name: 'fan', line: 22 }], true],
  ['an input', [{ name: 'door', line: 5, direction: 'in' }], true],
  ['safeState on', [{ name: 'pump', line: 23, safeState: true }], true],
  ["the tests' fixture list", GPIO, true],
  ['a typo in a key', [{ name: 'heater', line: 17, direction: 'out', activelow: true }], false],
  ['a line that is not a number', [{ name: 'heater', line: 'x' }], false],
  ['a line out of range', [{ name: 'heater', line: 128 }], false],
  ['an unknown direction', [{ name: 'heater', line: 17, direction: 'up' }], false],
  ['activeLow as text', [{ name: 'heater', line: 17, activeLow: 'yes' }], false],
  ['an empty name', [{ name: '', line: 17 }], false],
  [
    'a name twice',
    [
      { name: 'heater', line: 17 },
      { name: 'heater', line: 27 },
    ],
    false,
  ],
  [
    'a line twice',
    [
      { name: 'heater', line: 17 },
      { name: 'cooler', line: 17 },
    ],
    false,
  ],
  ['not a list', ['heater'], false],
];

t.test('the failsafe, the service and the sim give every gpio list the same verdict', async (t) => {
  const { loadConfig } = await import('../../src/config.js');
  const { parseSimConfig } = await import('../../drivers/sim/sim-config.js');
  for (const [what, gpio, accepted] of LINE_DOCUMENTS) {
    const root = makeGpioRoot(PI5_CHIPS, Object.fromEntries([5, 17, 22, 23, 27].map((line) => [571 + line, '0'])));
    t.teardown(() => rmSync(root, { recursive: true, force: true }));
    const file = writeConfig({ hardware: 'linux', gpio });
    const verdict = (f: () => unknown) => {
      try {
        f();
        return true;
      } catch {
        return false;
      }
    };
    t.equal(
      verdict(() => loadConfig({ config: file }, {})),
      accepted,
      `service: ${what}`,
    );
    t.equal(
      verdict(() => parseSimConfig({ gpio })),
      accepted,
      `sim: ${what}`,
    );
    const result = run(['--config', file, '--gpio-root', root]);
    t.equal(result.code === 0, accepted, `failsafe: ${what}: ${result.stderr}`);
  }
});

t.test('a line without direction is made safe like an output', async (t) => {
  const root = makeGpioRoot(PI5_CHIPS, { 593: '1' }); // GPIO22 on the Pi 5 header chip, left on
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const result = run(['--config', writeConfig({ gpio: [{ name: 'heater', line: 22 }] }), '--gpio-root', root]);
  t.equal(result.code, 0, result.stderr);
  t.equal(level(root, 593), '0', 'heater off');
  t.equal(direction(root, 593), 'low');
});

t.test("a bad entry is the service's message; the good entries are still made safe", async (t) => {
  const root = makeGpioRoot(PI5_CHIPS, { 588: '0' });
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const result = run([
    '--config',
    writeConfig({ gpio: [GPIO[0], { name: 'fan', line: 22, direction: 'up' }] }),
    '--gpio-root',
    root,
  ]);
  t.equal(result.code, 1);
  t.equal(result.stderr, `failsafe: gpio[1].direction: must be 'out' or 'in', got "up"\n`);
  t.equal(level(root, 588), '1', 'heater made safe anyway');
});

t.test(
  "other settings are read with the service's schema: a problem is named, outputs are still made safe",
  async (t) => {
    const root = makeGpioRoot(PI5_CHIPS, { 588: '0' });
    t.teardown(() => rmSync(root, { recursive: true, force: true }));
    const result = run([
      '--config',
      writeConfig({ gpio: [GPIO[0]], serialPorts: '/dev/ttyUSB0', prot: 5000 }),
      '--gpio-root',
      root,
    ]);
    t.equal(result.code, 1);
    const lines = result.stderr.trim().split('\n');
    t.match(lines, [
      /^failsafe: configuration error: serialPorts \(file\): must be a list of non-empty strings, got "\/dev\/ttyUSB0"$/,
      /^failsafe: configuration error: prot: unknown key; did you mean "port"\?/,
    ]);
    t.equal(level(root, 588), '1', 'heater made safe anyway');
  },
);

t.test('flags: one parser, an unknown flag names the closest one', async (t) => {
  const result = run(['--gpio-rot', '/x']);
  t.equal(result.code, 1);
  t.match(
    result.stderr,
    /^failsafe: --gpio-rot: unknown option; did you mean "--gpio-root"\? \(see --help\) \(usage: edgeblocks-failsafe/,
  );
});
