// edgeblocks-failsafe after a kill -9: relays on DS2408/DS2413 IO modules still latched on are
// switched off by the command itself, over the real drivers: a kernel w1 sysfs tree and a
// DS2480B adapter behind a real pty (socat), both emulated in this process.
// tags: slow (the failsafe command on real drivers behind a pty)
import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDs2480bPty, Ds2480bSim } from '../../drivers/sim/ds2480b-sim.js';
import { OneWireSegment, SimDs18b20, SimDs2408, SimDs2413 } from '../../drivers/sim/onewire-wire.js';
import { W1Tree } from '../../drivers/sim/w1-tree.js';
import { limit as scaled } from '../helpers/limits.js';
import { ROOT } from '../helpers/root.js';
import { needTools } from '../helpers/tools.js';

needTools('socat');

/** The failsafe's own bound (`--timeout`) stretches too, up to the most it accepts. */
const FAILSAFE_MAX_MS = 60000;

const repo = ROOT;
// As it ships: `npm test` builds dist first, and the command finds its native modules there.
const failsafe = join(repo, 'dist/src/failsafe/index.js');

/** Runs the command without blocking this process, which serves the emulated buses meanwhile. */
function run(
  args: string[],
  limitMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  // The command resolves its native modules (serialport) from the checkout's node_modules.
  const child = spawn(process.execPath, [failsafe, ...args], {
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  t.teardown(() => {
    clearTimeout(killer);
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    }),
  );
}

function writeConfig(config: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'eb-failsafe-ow-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'config.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}

t.test('IO modules left latched on by a crash are switched off (kernel w1 and DS2480B)', async (t) => {
  // Kernel w1: a DS2408 with relays 1, 2 and 8 on, a DS2413 with A on, beside a sensor.
  const w1seg = new OneWireSegment();
  w1seg.attach(new SimDs18b20({ serial: 0x11n, temperature: 19 }));
  const w1Switch = w1seg.attach(new SimDs2408({ serial: 0x12n }));
  const w1Pair = w1seg.attach(new SimDs2413({ serial: 0x13n }));
  w1Switch.channelWrite(0b0111_1100);
  w1Pair.pioWrite(0b10);
  const tree = new W1Tree({ masters: [w1seg] });
  tree.refresh();
  tree.start(20);
  t.teardown(() => tree.close());

  // DS2480B on a pty: a DS2408 with every relay on.
  const serialSeg = new OneWireSegment({ name: 'ds2480b' });
  const serialSwitch = serialSeg.attach(new SimDs2408({ serial: 0x21n }));
  serialSwitch.channelWrite(0x00);
  const pty = await createDs2480bPty(new Ds2480bSim(serialSeg), { startTimeoutMs: scaled(5000) });
  t.teardown(() => pty.close());

  t.equal(w1Switch.activeOutputs(), 0b1000_0011, 'before: three relays on (w1)');
  t.equal(w1Pair.activeOutputs(), 0b01, 'before: PIOA on (w1)');
  t.equal(serialSwitch.activeOutputs(), 0xff, 'before: eight relays on (DS2480B)');

  const config = writeConfig({
    hardware: 'linux',
    gpio: [],
    w1Root: tree.root,
    i2cBuses: ['/dev/i2c-250'],
    serialPorts: [pty.path],
  });
  const result = await run(
    ['--config', config, '--timeout', String(Math.min(FAILSAFE_MAX_MS, scaled(8000)))],
    scaled(20000),
  );
  t.equal(result.code, 0, `${result.stdout}${result.stderr}`);
  // The emulated kernel applies a written `output` at its next refresh (every 20 ms here), the
  // real one at the write: take the last writes in before looking at the devices.
  tree.refresh();
  t.equal(w1Switch.activeOutputs(), 0, 'w1 DS2408: every relay off');
  t.equal(w1Pair.activeOutputs(), 0, 'w1 DS2413: both outputs off');
  t.equal(serialSwitch.activeOutputs(), 0, 'DS2480B DS2408: every relay off');
  t.match(result.stdout, new RegExp(`DS2408 ${w1Switch.address} on \\S+: all outputs off`));
  t.match(result.stdout, new RegExp(`DS2413 ${w1Pair.address} on \\S+: all outputs off`));
  t.match(result.stdout, new RegExp(`DS2408 ${serialSwitch.address} on \\S+: all outputs off`));
  t.notMatch(result.stdout, /28-|DS18B20/, 'sensors are left alone');
});

t.test('a serial port that never answers: bounded, one line, exit 1', async (t) => {
  // A pty pair with nothing serving the other end: the DS2480B reset gets no reply.
  const dir = mkdtempSync(join(tmpdir(), 'eb-failsafe-silent-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const socat = spawn(
    'socat',
    ['-d', '-d', `pty,raw,echo=0,link=${join(dir, 'a')}`, `pty,raw,echo=0,link=${join(dir, 'b')}`],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  t.teardown(() => {
    if (socat.exitCode === null) socat.kill('SIGKILL');
  });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`socat did not start: ${err}`)), scaled(5000));
    socat.stderr.on('data', (c: Buffer) => {
      err += c.toString();
      if (err.includes('starting data transfer loop')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const config = writeConfig({
    hardware: 'linux',
    gpio: [],
    w1Root: join(dir, 'no-w1'),
    i2cBuses: ['/dev/i2c-250'],
    serialPorts: [join(dir, 'b')],
  });
  const result = await run(['--config', config, '--timeout', '1500'], scaled(20000));
  t.equal(result.code, 1, result.stdout + result.stderr);
  t.match(result.stderr, /DS2480B|gave up after 1500 ms/);
  t.notMatch(result.stderr, /\n\s+at /, 'no stack trace');
  t.ok(result.ms < scaled(10000), `ended by itself (${result.ms} ms)`);
});
