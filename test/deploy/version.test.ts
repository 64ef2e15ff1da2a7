// The version is one fact (issue 44, item 4): the built service, run as the systemd unit runs it
// (`node dist/src/main.js --config FILE`, from its own working directory, the bundle picked),
// reports package.json's version in SysInfo, system/status, the index route, Home Assistant's
// device info and another controller's /fleet, and `edgeblocks version` says the same. Before,
// the bundle looked for package.json one directory above the checkout and every one of those
// said 0.0.0 while the CLI said 0.1.0. Needs `npm run build`.
// tags: slow (the built service run as the systemd unit runs it)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { pickAppModule } from '../../src/service/app-module.js';
import { startApp } from '../helpers/app.js';
import { CLI, ROOT, startScript } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { freePort } from '../helpers/mosquitto.js';
import { Recorder, sleep, until } from '../mqtt/fixtures.js';

const PACKAGE = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };

t.test('the built service, run as the unit runs it, reports one version everywhere', async (t) => {
  t.not(PACKAGE.version, '0.0.0', 'package.json has a real version to compare with');
  t.equal(
    pickAppModule(
      pathToFileURL(path.join(ROOT, 'dist/src/app.js')),
      pathToFileURL(path.join(ROOT, 'dist/bundle/app.cjs')),
    ),
    pathToFileURL(path.join(ROOT, 'dist/bundle/app.cjs')).href,
    'the build leaves the bundle newer than the plain modules, so main.js runs the bundle',
  );

  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-version-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cli = spawnSync(process.execPath, [CLI, 'version'], { cwd: dir, encoding: 'utf8', timeout: limit(30_000) });
  t.equal(cli.stdout.trim(), PACKAGE.version, '`edgeblocks version`');

  const mqttPort = await freePort();
  const config = path.join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      serviceId: 'unit-one',
      host: '127.0.0.1',
      port: 0,
      httpsPort: 0,
      mqttPort,
      dataDir: path.join(dir, 'data'),
      hardware: 'sim',
      homeAssistant: true,
      emitInterval: 300,
      logLevel: 'info',
    }),
  );
  // As systemd/edgeblocks.service: node <install>/dist/src/main.js --config FILE, in its own
  // working directory (WorkingDirectory=/var/lib/edgeblocks), NODE_ENV=production, no module override.
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
  delete env.EDGEBLOCKS_MODULES;
  const prevCwd = process.cwd();
  process.chdir(dir);
  let service;
  try {
    service = await startScript(CLI, ['--config', config], env, t, limit(30_000));
  } finally {
    process.chdir(prevCwd);
  }
  const base = `${service.base}/unit-one`;
  const get = async (url: string) => (await fetch(url)).json() as Promise<any>;

  const ha = await Recorder.connect(`mqtt://127.0.0.1:${mqttPort}`);
  t.teardown(() => ha.end());
  await ha.subscribe('homeassistant/#');

  t.equal((await get(`${base}/system/status`)).version, PACKAGE.version, 'system/status');
  const sysInfo = (await (
    await fetch(`${base}/blocks/read`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'SysInfo' }),
    })
  ).json()) as { data: { version: string } };
  t.equal(sysInfo.data.version, PACKAGE.version, 'SysInfo');
  t.equal((await get(`${service.base}/api`)).version, PACKAGE.version, 'the index route (GET /api)');

  // Home Assistant: a block entity's device info and origin.
  await fetch(`${base}/blocks/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 20 } }),
  });
  const discovery = await ha.waitFor(
    (m) => m.topic.startsWith('homeassistant/sensor/') && m.json().name === 'Beer Sensor',
    'the Home Assistant config of the sensor',
    10_000,
  );
  t.equal(discovery.json().device.sw_version, PACKAGE.version, "Home Assistant's device info");
  t.equal(discovery.json().origin.sw_version, PACKAGE.version, "and Home Assistant's origin");

  // The fleet: another controller on the same broker lists this one with its version.
  const other = await startApp({
    serviceId: 'other-one',
    mqttUrl: `mqtt://127.0.0.1:${mqttPort}`,
    emitInterval: '300',
  });
  t.teardown(() => other.close());
  await until(() => other.app.mqtt.connected, 'the other controller to connect', 10_000);
  let listed: { serviceId: string; version: string | null } | undefined;
  for (let i = 0; i < 100 && !listed?.version; i++) {
    const fleet = (await get(`${other.base}/fleet`)) as {
      controllers: { serviceId: string; version: string | null }[];
    };
    listed = fleet.controllers.find((c) => c.serviceId === 'unit-one');
    if (!listed?.version) await sleep(100);
  }
  t.equal(listed?.version, PACKAGE.version, "another controller's /fleet");
});
