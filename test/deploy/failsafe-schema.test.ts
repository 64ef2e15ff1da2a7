// edgeblocks-failsafe as `npm run build` compiled it (test/deploy/failsafe-command.ts), run as a
// child process against fake sysfs GPIO trees: it reads its config with the service's schema and
// its flags with the service's parser, and still makes the good entries safe. Its outputs' safe
// levels are failsafe.test.ts.
// tags: slow (the failsafe command, run some eighteen times)
import t from 'tap';
import { rmSync } from 'node:fs';
import { makeGpioRoot, PI5_CHIPS } from '../drivers/gpio-fixtures.js';
import { direction, failsafeCommand, GPIO, level } from './failsafe-command.js';

const { run, writeConfig } = failsafeCommand(t);

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
