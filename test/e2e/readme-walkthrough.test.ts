// The README's curl walk-through works step by step on a fresh `npm run demo` (issue 14.4): every
// shell block of README.md with curl commands runs, in order, against the demo script, with
// curl failing on any HTTP error; then the blocks the README promises are checked.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { postJson, ROOT, startScript } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-readme-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** The ```sh blocks of the README that talk to the service with curl, in order. */
function curlBlocks(readme: string): string[] {
  return [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => /\bcurl /.test(b) && !/\b(npm|sudo|mosquitto_\w+) /.test(b));
}

t.test('README curl commands on the demo', async (t) => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const blocks = curlBlocks(readme);
  t.ok(blocks.length >= 4, `found the curl blocks (${blocks.length})`);
  t.match(readme, /npm run demo/);

  const cli = await startScript(path.join(ROOT, 'scripts/demo.js'), ['--port', '0', '--https-port', '0', '--mqtt-port', '0', '--data-dir', path.join(dir, 'demo-data')], {}, t);
  const demoSetpoint = (await postJson(`${cli.base}/edge-one/blocks/read`, { id: 'Beer Setpoint' })).body.data.storedSetting;
  t.match(demoSetpoint, { unit: 'degC', value: Number }, 'the demo has its Beer Setpoint');

  const script = [
    'set -euo pipefail',
    // Every command must succeed: an HTTP error (a 409 for a name the demo already uses) stops the run.
    'curl() { command curl --fail-with-body --max-time 30 "$@"; echo; }',
    ...blocks,
  ]
    .join('\n')
    .replaceAll('localhost:5000', `127.0.0.1:${cli.port}`);
  const res = spawnSync('bash', ['-c', script], { cwd: dir, encoding: 'utf8', timeout: limit(120000), killSignal: 'SIGKILL' });
  t.equal(res.status, 0, `every command succeeds:\n${res.stdout.slice(-2000)}\n${res.stderr}`);
  const outputs = res.stdout
    .split('\n')
    .filter((l) => l.trim().startsWith('{') || l.trim().startsWith('['))
    .map((l) => JSON.parse(l));
  t.notOk(outputs.some((o) => typeof o?.statusCode === 'number' && o.statusCode >= 400), 'no error answer');

  const mash = outputs.filter((o) => o?.id === 'Mash Setpoint');
  t.ok(mash.length >= 3, 'create, patch and read of the new setpoint');
  const [created, patched, logged] = mash;
  t.ok(Math.abs(created.data.storedSetting.value - ((150 - 32) * 5) / 9) < 0.01, 'created at 150 degF');
  t.equal(created.data.sensorId.id, 'Mash Sensor', 'linked to the new sensor');
  t.same(patched.data.storedSetting, { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'degC', value: 66 }, 'the patch changed the new setpoint');
  t.equal(logged.data['storedSetting[degC]'], 66, 'read/logged shows the patched setting');

  const after = (await postJson(`${cli.base}/edge-one/blocks/read`, { id: 'Beer Setpoint' })).body.data.storedSetting;
  t.equal(after.unit, 'degF', "the README's datastore step switched the units");
  t.ok(Math.abs(((after.value - 32) * 5) / 9 - demoSetpoint.value) < 0.01, "the demo's setpoint is left as it was");

  const all = (await postJson(`${cli.base}/edge-one/blocks/all/read`)).body as Array<{ id: string; type: string; data: { address?: string } }>;
  const types = all.map((b) => b.type);
  t.ok(types.includes('OneWireBus'), 'OneWireBus blocks after discover');
  t.ok(types.includes('DS2413'), 'the spare DS2413 after discover');
  t.ok(all.some((b) => b.type === 'TempSensorOneWire' && b.data.address === '2801c0000000000b'), 'the room sensor after discover');
});
