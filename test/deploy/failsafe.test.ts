// edgeblocks-failsafe as `npm run build` compiled it, run as a child process against fake
// sysfs GPIO trees: outputs left on by a "crash" end up at their safe physical level. That it reads
// its config with the service's schema and flags is failsafe-schema.test.ts.
// tags: slow (the failsafe command, run some sixteen times)
import t from 'tap';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { makeGpioRoot, PI4_CHIPS, PI5_CHIPS } from '../drivers/gpio-fixtures.js';
import { direction, failsafeCommand, GPIO, level } from './failsafe-command.js';

const { copied, missing, run, writeConfig } = failsafeCommand(t);

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
