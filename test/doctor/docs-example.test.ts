// docs/raspberry-pi.md shows a report of `edgeblocks doctor`. This runs the command on the setup
// the example was made on (a Pi 4 laid out as its kernel does, the emulated DS2482 and w1 buses,
// one sensor on a flaky cable) and checks the docs show what it prints, but for the numbers that
// change from run to run (the time, Node's version, the free disk, conversion times).
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, ROOT } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { layOutPi, piModel } from '../helpers/pi-models.js';

const EXAMPLE_SIM = {
  ds2482: [
    {
      address: 24,
      variant: 'ds2482-100',
      channels: [
        [
          { name: 'beer', type: 'DS18B20', address: '28-000005c8a1f3', temperature: 19.5 },
          { name: 'fridge', type: 'DS18B20', address: '28-000005c8b2e4', temperature: 4.25, faults: { crcEvery: 4 } },
        ],
      ],
    },
  ],
  w1: [[{ name: 'room', type: 'DS18B20', address: '28-01193ad5e7aa', temperature: 21.0625 }]],
  i2cSensors: [{ name: 'chamber', type: 'BME280', address: '0x76', temperature: 18.25, humidity: 62, pressure: 1009 }],
  gpio: [
    { name: 'heater', line: 17, direction: 'out', drives: 'heater' },
    { name: 'cooler', line: 27, direction: 'out', activeLow: true, drives: 'cooler' },
  ],
};

/** The lines whose numbers differ between runs, with the numbers taken out. */
function normalise(report: string): string {
  return report
    .replace(/^edgeblocks doctor \S+, \S+$/m, 'edgeblocks doctor VERSION, TIME')
    .replace(/^( +node +)v\S+ \(\w+\)$/m, '$1NODE')
    .replace(/^( +disk +\S+: )[\d.]+ GB free \(\d+ %\)$/m, '$1FREE')
    .replace(/^( +conversion +)\d+\.\.\d+ ms a read$/gm, '$1MS')
    .trimEnd();
}

t.test('the example report in docs/raspberry-pi.md is what the command prints', async (t) => {
  const docs = readFileSync(join(ROOT, 'docs/raspberry-pi.md'), 'utf8');
  const m = /<!-- doctor-example -->\n```text\n\$ sudo edgeblocks doctor\n([\s\S]*?)\n```/.exec(docs);
  t.ok(m, 'docs/raspberry-pi.md has the example (after <!-- doctor-example -->)');
  const dir = t.testdir();
  const root = join(dir, 'root');
  layOutPi(piModel('pi4'), root);
  const dataDir = join(root, 'var/lib/edgeblocks');
  mkdirSync(dataDir, { recursive: true });
  const sim = join(dir, 'sim.json');
  writeFileSync(sim, JSON.stringify(EXAMPLE_SIM));
  const res = spawnSync(
    process.execPath,
    [CLI, 'doctor', '--root', root, '--hardware', 'sim', '--sim-config', sim, '--data-dir', dataDir],
    { encoding: 'utf8', timeout: limit(90000), killSignal: 'SIGKILL', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  t.equal(res.status, 1, `the example has a warning: exit 1\n${res.stderr}`);
  t.equal(
    normalise(m?.[1] ?? ''),
    normalise(res.stdout),
    'the docs show the report (regenerate it if the doctor changed)',
  );
  if (process.env.DOCTOR_EXAMPLE_OUT) writeFileSync(process.env.DOCTOR_EXAMPLE_OUT, res.stdout);
});
