// systemd/edgeblocks.service: systemd-analyze verify, the security exposure gate, and the
// directives the service and the failsafe rely on. Needs systemd-analyze (Debian: systemd).
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { limit } from '../helpers/limits.js';
import { ROOT } from '../helpers/root.js';
import { needTools } from '../helpers/tools.js';

needTools('systemd-analyze');

const repo = ROOT;
const unitPath = join(repo, 'systemd', 'edgeblocks.service');
const unit = readFileSync(unitPath, 'utf8');
const MAX_EXPOSURE = 3.0;

function analyze(args: string[]) {
  const result = spawnSync('systemd-analyze', args, {
    encoding: 'utf8',
    env: { ...process.env, SYSTEMD_COLORS: '0', SYSTEMD_PAGER: '' },
    timeout: limit(30000),
    killSignal: 'SIGKILL',
  });
  if (result.error) {
    throw new Error(`systemd-analyze cannot run (${result.error.message}): install the Debian package "systemd"`);
  }
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

/** The unit with its executables moved under a temp prefix where stubs exist. */
function stagedCopy(dir: string, edit: (text: string) => string = (x) => x): string {
  const bin = join(dir, 'usr/bin');
  const app = join(dir, 'opt/edgeblocks/dist/src');
  mkdirSync(bin, { recursive: true });
  mkdirSync(join(app, 'failsafe'), { recursive: true });
  writeFileSync(join(bin, 'node'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(bin, 'node'), 0o755);
  writeFileSync(join(app, 'main.js'), '');
  writeFileSync(join(app, 'failsafe/index.js'), '');
  const units = join(dir, 'units');
  mkdirSync(units, { recursive: true });
  const text = unit
    .replaceAll('/usr/bin/node', join(bin, 'node'))
    .replaceAll('/opt/edgeblocks', join(dir, 'opt/edgeblocks'));
  const path = join(units, 'edgeblocks.service');
  writeFileSync(path, edit(text));
  return path;
}

t.test('systemd-analyze verify passes without a warning', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'eb-unit-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const ok = analyze(['verify', stagedCopy(dir)]);
  t.equal(ok.code, 0, ok.out);
  const ours = ok.out.split('\n').filter((line) => line.includes('edgeblocks'));
  t.same(ours, [], 'no warnings about our unit');

  // The harness itself notices a broken unit.
  const broken = mkdtempSync(join(tmpdir(), 'eb-unit-'));
  t.teardown(() => rmSync(broken, { recursive: true, force: true }));
  const bad = analyze([
    'verify',
    stagedCopy(broken, (text) => text.replace(/^ExecStart=\S+/m, 'ExecStart=/nonexistent/node')),
  ]);
  t.not(bad.code, 0);
  t.match(bad.out, /nonexistent\/node is not executable/);
  const typo = mkdtempSync(join(tmpdir(), 'eb-unit-'));
  t.teardown(() => rmSync(typo, { recursive: true, force: true }));
  t.match(
    analyze(['verify', stagedCopy(typo, (text) => text.replace('ProtectHome=', 'ProtectHomes='))]).out,
    /Unknown key/,
  );
});

t.test(`security exposure is at most ${MAX_EXPOSURE}`, async (t) => {
  const result = analyze(['security', '--offline=yes', '--no-pager', unitPath]);
  const match = /Overall exposure level for edgeblocks\.service: (\d+(?:\.\d+)?)/.exec(result.out);
  t.ok(match, `score found in: ${result.out.slice(-300)}`);
  const score = Number(match?.[1]);
  t.comment(`exposure ${score}`);
  t.ok(score <= MAX_EXPOSURE, `exposure ${score} <= ${MAX_EXPOSURE}`);
});

function directive(key: string): string[] {
  return [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]!.trim());
}

t.test('the directives the runtime and the failsafe depend on', async (t) => {
  t.same(directive('Type'), ['notify']);
  // notify.ts sends through a systemd-notify child: main-only access would drop every message.
  t.same(directive('NotifyAccess'), ['all']);
  t.match(directive('WatchdogSec')[0], /^\d+s$/);
  t.same(directive('Restart'), ['on-failure']);
  t.same(directive('User'), ['edgeblocks']);
  t.same(directive('SupplementaryGroups'), ['gpio i2c dialout']);
  t.same(directive('StateDirectory'), ['edgeblocks']);
  t.match(
    directive('ExecStart')[0],
    /dist\/src\/main\.js --config \/etc\/edgeblocks\/config\.json --data-dir \/var\/lib\/edgeblocks$/,
  );
  t.match(directive('ExecStopPost')[0], /dist\/src\/failsafe\/index\.js --config \/etc\/edgeblocks\/config\.json$/);
  t.same(directive('AmbientCapabilities'), ['CAP_NET_BIND_SERVICE']);
  t.same(directive('CapabilityBoundingSet'), ['CAP_NET_BIND_SERVICE']);
  t.same(directive('ProtectSystem'), ['strict']);
  t.same(directive('DevicePolicy'), ['closed']);
  for (const device of ['char-gpiochip rw', 'char-i2c rw', 'char-ttyUSB rw', 'char-ttyACM rw', '/dev/gpiomem rw']) {
    t.ok(directive('DeviceAllow').includes(device), `DeviceAllow=${device}`);
  }
  t.match(directive('ReadWritePaths').join(' '), /-\/sys\/class\/gpio/);
  t.same(directive('MemoryDenyWriteExecute'), [], 'V8 needs W+X memory');
  t.same(directive('PrivateDevices'), [], 'would hide the buses');
  t.same(directive('PrivateUsers'), [], 'would break group access to the devices');

  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  t.equal(pkg.bin['edgeblocks-failsafe'], 'dist/src/failsafe/index.js', 'ExecStopPost runs the packaged bin');
});
