// tags: slow (the built CLI, started once per bad setting)
// A bad setting from a flag, the environment or the config file: the built CLI exits 2 with one
// line naming it, no stack trace. (Beside config.test.ts, to keep each file well inside tap's limit.)
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-config-errors-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, content);
  return p;
};

const bad: Array<[string, string[], NodeJS.ProcessEnv, RegExp]> = [
  ['a port that is not a number', ['--port', 'abc'], {}, /port .*must be an integer/],
  ['a port out of range', ['--port', '70000'], {}, /port .*0-65535/],
  ['an unknown flag', ['--colour', 'red'], {}, /--colour: unknown option/],
  ['an unknown hardware kind', ['--hardware', 'arduino'], {}, /hardware .*'linux' or 'sim'/],
  [
    'a bad env value',
    [],
    { EDGEBLOCKS_EMIT_INTERVAL: '-5' },
    /emitInterval \(env EDGEBLOCKS_EMIT_INTERVAL\): must be an integer 1-2147483647, in milliseconds \(5000 is 5 s\), got -5/,
  ],
  [
    'a bad mqtt url',
    ['--mqtt-url', 'localhost'],
    {},
    /mqttUrl \(flag --mqtt-url\): must be 'embedded' or a URL like mqtt:\/\/host:1883, got "localhost"$/,
  ],
  [
    'a missing config file',
    ['--config', '/nonexistent/x.json'],
    {},
    /config: cannot read \/nonexistent\/x.json: ENOENT/,
  ],
  ['a config file that is not JSON', ['--config', file('b.json', '{port: 1')], {}, /config: .*is not valid JSON/],
  ['an unknown key in the file', ['--config', file('c.json', '{"prot": 1}')], {}, /prot: unknown key/],
  [
    'a wrong type in the file',
    ['--config', file('d.json', '{"port": "5000"}')],
    {},
    /port \(file\): must be an integer/,
  ],
  [
    'a bad backup schedule',
    ['--config', file('f.json', '{"backupSchedule": "often"}')],
    {},
    /backupSchedule: "often" is not a valid cron expression/,
  ],
  [
    'a sim config that is not valid',
    [
      '--hardware',
      'sim',
      '--sim-config',
      file('sim.json', '{"ds2482": [{"address": 24, "channels": [[{"name": "probe", "type": "DS9999"}]]}]}'),
    ],
    {},
    /simConfig: .*sim.json: .*type/,
  ],
  [
    'a bad gpio entry',
    ['--config', file('e.json', '{"gpio": [{"name": "heater", "line": "x"}]}')],
    {},
    /^edgeblocks: configuration error: gpio\[0\]\.line: must be an integer 0-127, got "x"$/,
  ],
  [
    'a typo in a gpio entry',
    ['--config', file('g.json', '{"gpio": [{"name": "heater", "line": 17, "direction": "out", "activelow": true}]}')],
    {},
    /^edgeblocks: configuration error: gpio\[0\]\.activelow: unknown key; did you mean "activeLow"\? known: name, line, direction, activeLow, safeState$/,
  ],
  [
    'a typo in a top-level key',
    ['--config', file('h.json', '{"prot": 5000}')],
    {},
    /^edgeblocks: configuration error: prot: unknown key; did you mean "port"\?/,
  ],
  [
    'an interval past what a timer takes (an extra 0 or two)',
    ['check', '--data-dir', path.join(dir, 'data'), '--emit-interval', '3000000000'],
    {},
    /^edgeblocks: configuration error: emitInterval \(flag --emit-interval\): must be an integer 1-2147483647, in milliseconds \(5000 is 5 s\), got 3000000000/,
  ],
  [
    // "5s" read as a duration: the message said what range, not what unit the number is in.
    'an interval given with a unit of its own',
    ['check', '--data-dir', path.join(dir, 'data'), '--emit-interval', '5s'],
    {},
    /^edgeblocks: configuration error: emitInterval \(flag --emit-interval\): must be an integer 1-2147483647, in milliseconds \(5000 is 5 s\), got "5s"/,
  ],
  [
    'a size given with a unit of its own',
    ['check', '--data-dir', path.join(dir, 'data')],
    { EDGEBLOCKS_HISTORY_MAX_BYTES: '512MB' },
    /^edgeblocks: configuration error: historyMaxBytes \(env EDGEBLOCKS_HISTORY_MAX_BYTES\): must be positive \(an integer\), in bytes \(536870912 is 512 MiB\), got "512MB"/,
  ],
  [
    'an alert retry interval past what a timer takes',
    [
      'check',
      '--data-dir',
      path.join(dir, 'data'),
      '--config',
      file('retry.json', '{"alerts": {"retryMaxMs": 3000000000}}'),
    ],
    {},
    /^edgeblocks: configuration error: alerts\.retryMaxMs: must be an integer 10-2147483647, in milliseconds \(5000 is 5 s\), got 3000000000$/,
  ],
  [
    // A file-only timing: its refusal said the range, not what the number is in.
    'an alert retry delay given with a unit of its own',
    [
      'check',
      '--data-dir',
      path.join(dir, 'data'),
      '--config',
      file('retry-base.json', '{"alerts": {"retryBaseMs": "5s"}}'),
    ],
    {},
    /^edgeblocks: configuration error: alerts\.retryBaseMs: must be an integer 10-2147483647, in milliseconds \(5000 is 5 s\), got "5s"$/,
  ],
  [
    'an alert rule time given with a unit of its own',
    [
      'check',
      '--data-dir',
      path.join(dir, 'data'),
      '--config',
      file('rule-after.json', '{"alerts": {"rules": {"sensorNull": {"after": "1m"}}}}'),
    ],
    {},
    /^edgeblocks: configuration error: alerts\.rules\.sensorNull\.after: must be a number 0-2592000, in seconds \(1800 is 30 min\), got "1m"$/,
  ],
  [
    'a misspelt EDGEBLOCKS_ variable',
    ['check', '--data-dir', path.join(dir, 'data')],
    { EDGEBLOCKS_PROT: '5001' },
    /^edgeblocks: configuration error: EDGEBLOCKS_PROT: unknown variable; did you mean "EDGEBLOCKS_PORT"\?/,
  ],
  [
    'an object in serialPorts',
    ['--config', file('i.json', '{"serialPorts": [{"path": "/dev/ttyUSB0"}]}')],
    {},
    /^edgeblocks: configuration error: serialPorts\[0\]: must be a non-empty string/,
  ],
  [
    'an empty name in i2cBuses',
    ['--config', file('j.json', '{"i2cBuses": ["/dev/i2c-1", ""]}')],
    {},
    /^edgeblocks: configuration error: i2cBuses\[1\]: must be a non-empty string/,
  ],
  [
    'a typo in the sim config',
    ['--hardware', 'sim', '--sim-config', file('sim2.json', '{"ds2482": [{"adress": 24}]}')],
    {},
    /sim\.ds2482\[0\]\.adress is not a setting: unknown key; did you mean "address"\?/,
  ],
  [
    'a typo in the sim plant',
    ['--hardware', 'sim', '--sim-config', file('sim3.json', '{"plant": {"ambiant": 18}}')],
    {},
    /plant\.ambiant is not a plant setting: unknown key; did you mean "ambient"\?/,
  ],
];

for (const [what, args, env, message] of bad) {
  t.test(`bad config: ${what} -> one line, exit code 2`, async (t) => {
    const res = spawnSync(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: limit(15000),
      killSignal: 'SIGKILL',
    });
    t.equal(res.status, 2);
    const lines = res.stderr.trim().split('\n');
    t.equal(lines.length, 1, `one line: ${res.stderr}`);
    t.match(lines[0], message);
    t.notMatch(res.stderr, /at .*\.js:\d+/, 'no stack trace');
  });
}
