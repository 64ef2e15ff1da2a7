// The walkthrough works step by step on a fresh `npm run demo` (issues 14.4 and 29): every shell
// block marked `<!-- run: demo -->` in README.md and the docs pages runs, page by page in the
// order below, against the demo script, with curl failing on any HTTP error and the MQTT
// commands talking to the demo's broker; then what the pages promise is checked.
// tags: slow (every demo block of the docs against a running demo)
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEMO, postJson, startDemo } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { markdownPages, readPage, shellBlocks } from '../helpers/markdown.js';
import { freePort, waitForPort } from '../helpers/mosquitto.js';
import { DEFAULTS } from '../../src/config.js';
import { needTools } from '../helpers/tools.js';

needTools('bash', 'curl', 'mosquitto_sub', 'mosquitto_pub');

const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-readme-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** The pages with demo commands, in the order a reader meets them (the units switch of the REST page comes late). */
const WALK = [
  'README.md',
  'docs/first-fermentation.md',
  'docs/mqtt.md',
  'docs/rest-api.md',
  'docs/hardware.md',
  'docs/alerts.md',
];

const toC = (degF: number) => ((degF - 32) * 5) / 9;

t.test('every page with demo commands is walked', async (t) => {
  const withDemo = markdownPages().filter((p) => shellBlocks(p).some((b) => b.run === 'demo'));
  t.same([...withDemo].sort(), [...WALK].sort(), 'WALK lists exactly the pages with <!-- run: demo --> blocks');
});

t.test("the quick start names the demo's ports and a line that moves them", async (t) => {
  const readme = readPage('README.md');
  const demoJs = readFileSync(DEMO, 'utf8');
  const demoHttps = Number(/'--https-port', '(\d+)'/.exec(demoJs)?.[1]);
  const ports = /opens three ports: HTTP (\d+) .*?MQTT (\d+) .*?TLS (\d+)/s.exec(readme);
  t.ok(ports, 'the README says which ports the demo opens');
  t.same(
    ports?.slice(1).map(Number),
    [DEFAULTS.port, DEFAULTS.mqttPort, demoHttps],
    "the ports named are the demo's: the HTTP and MQTT defaults and the demo's TLS port",
  );
  const line = /`npm run demo -- ([^`]+)`/.exec(readme)?.[1];
  t.ok(line, 'the README has a one-line way to move them');
  const args = line!.split(/\s+/);
  t.same(
    args.filter((a) => a.startsWith('--')),
    ['--port', '--mqtt-port', '--https-port'],
    'the line moves the three ports',
  );
  // The README's numbers are fixed; here each one is swapped for a free port (the 0 stays: the gateway off).
  const moved = await Promise.all(args.map(async (a) => (/^[1-9]\d+$/.test(a) ? String(await freePort()) : a)));
  const cli = await startDemo([...moved, '--data-dir', path.join(dir, 'moved-data')], {}, t);
  const at = (flag: string) => Number(moved[moved.indexOf(flag) + 1]);
  t.equal(cli.port, at('--port'), 'the dashboard listens where the line says');
  await waitForPort(at('--mqtt-port'));
  const broker = await cli.waitFor(/mqtt broker listening on \S+:(\d+)/, 'the broker reporting its port');
  t.equal(Number(broker[1]), at('--mqtt-port'), 'the broker too');
  t.notMatch(cli.output(), /https gateway listening/i, '--https-port 0 turned the TLS gateway off');
});

t.test('the demo commands of the README and docs pages on the demo', async (t) => {
  const blocks = WALK.flatMap((page) => shellBlocks(page).filter((b) => b.run === 'demo'));
  t.ok(blocks.length >= 10, `found the demo blocks (${blocks.length})`);
  t.ok(
    blocks.some((b) => b.page === 'README.md'),
    'the README has demo commands',
  );
  t.match(readPage('README.md'), /npm run demo/);
  const mqttPort = await freePort();

  const cli = await startDemo(
    ['--port', '0', '--https-port', '0', '--mqtt-port', String(mqttPort), '--data-dir', path.join(dir, 'demo-data')],
    {},
    t,
  );
  const demoSetpoint = (await postJson(`${cli.base}/edge-one/blocks/read`, { id: 'Beer Setpoint' })).body.data
    .storedSetting;
  t.match(demoSetpoint, { unit: 'degC', value: Number }, 'the demo has its Beer Setpoint');

  const script = [
    'set -euo pipefail',
    // Every command must succeed: an HTTP error (a 409 for a name the demo already uses) stops the run.
    'curl() { command curl --fail-with-body --max-time 30 "$@"; echo; }',
    // The MQTT page's watcher runs until Ctrl-C: here it stops after the first message (the retained state).
    `mosquitto_sub() { command mosquitto_sub -C 1 -W ${Math.ceil(limit(10))} "$@"; echo; }`,
    ...blocks.map((b) => `# ${b.page}:${b.line}\n${b.code}`),
  ]
    .join('\n')
    .replaceAll('localhost:5000', `127.0.0.1:${cli.port}`)
    .replaceAll('-p 1883', `-p ${mqttPort}`);
  const res = spawnSync('bash', ['-c', script], {
    cwd: dir,
    encoding: 'utf8',
    timeout: limit(120000),
    killSignal: 'SIGKILL',
  });
  t.equal(res.status, 0, `every command succeeds:\n${res.stdout.slice(-2000)}\n${res.stderr}`);
  const outputs = res.stdout
    .split('\n')
    .filter((l) => l.trim().startsWith('{') || l.trim().startsWith('['))
    .map((l) => JSON.parse(l));
  t.notOk(
    outputs.some((o) => typeof o?.statusCode === 'number' && o.statusCode >= 400),
    'no error answer',
  );

  // Issue 50.8: the README lists what discover adds on the demo, with the room sensor's address as the API shows it.
  const discovered = outputs.find(
    (o) => Array.isArray(o) && o.some((b) => b.type === 'OneWireBus') && !o.some((b) => b.type === 'SysInfo'),
  ) as Array<{ id: string; type: string; data: { address?: string } }>;
  t.ok(discovered, "the README's blocks/discover answered with the new blocks");
  const readme = readPage('README.md');
  const section = /adds the emulated devices that are not blocks yet:([\s\S]*?)\n\n(?!- )/.exec(readme)?.[1] ?? '';
  const named = [...section.matchAll(/`([A-Za-z0-9]+ [0-9a-fx]+)`/g)].map((m) => m[1]).sort();
  const devices = discovered.filter((b) => b.type !== 'OneWireBus');
  t.same(named, devices.map((b) => b.id).sort(), 'the README names exactly the devices discover adds');
  const buses = discovered.filter((b) => b.type === 'OneWireBus').length;
  t.match(section, `one \`OneWireBus\` block per 1-Wire bus (${['', 'one', 'two', 'three', 'four'][buses]},`);
  const roomAddress = /the room sensor, `([^`]+)`: a `TempSensorOneWire` whose `address` is `([0-9a-f]+)`/.exec(
    section,
  );
  const roomBlock = discovered.find((b) => b.id === roomAddress?.[1]);
  t.equal(roomBlock?.type, 'TempSensorOneWire', 'the room sensor is the discovered TempSensorOneWire named');
  t.equal(roomAddress?.[2], roomBlock?.data.address, "the room sensor's address as the API shows it");

  // Issue 50.5: the alerts page's pulled sensor is an active alert when the page lists them.
  const listed = outputs.find((o) => Array.isArray(o?.active));
  t.ok(listed, "the alerts page's list was read");
  t.ok(
    listed?.active.some((a: unknown) => JSON.stringify(a).includes('Beer Sensor')),
    `the pulled beer sensor is an active alert: ${JSON.stringify(listed?.active)}`,
  );

  const mash = outputs.filter((o) => o?.id === 'Mash Setpoint');
  t.ok(mash.length >= 3, 'create, patch and read of the new setpoint');
  const [created, patched, logged] = mash;
  t.ok(Math.abs(created.data.storedSetting.value - ((150 - 32) * 5) / 9) < 0.01, 'created at 150 degF');
  t.equal(created.data.sensorId.id, 'Mash Sensor', 'linked to the new sensor');
  t.same(
    patched.data.storedSetting,
    { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'degC', value: 66 },
    'the patch changed the new setpoint',
  );
  t.equal(logged.data['storedSetting[degC]'], 66, 'read/logged shows the patched setting');

  // The REST page's table says what blocks/backup/load answers; its example's answer has those keys.
  const loaded = outputs.find((o) => o && !Array.isArray(o) && 'messages' in o);
  const promised = /\| `blocks\/backup\/load` \| a backup \| `\{([^}]*)\}`/.exec(readPage('docs/rest-api.md'))?.[1];
  t.same(
    Object.keys(loaded ?? {}).sort(),
    (promised ?? '').split(/,\s*/).sort(),
    `the backup load answers what docs/rest-api.md says: {${promised}}`,
  );

  t.match(res.stdout, /^svc\/\S+ [{[]/m, "the MQTT page's watcher got a retained message of the demo");
  const beer = (await postJson(`${cli.base}/edge-one/blocks/read`, { id: 'Beer Setpoint' })).body.data;
  t.equal(beer.storedSetting.unit, 'degF', "the REST page's datastore step switched the units");
  t.ok(
    Math.abs(toC(beer.storedSetting.value) - 18.5) < 0.01,
    `the MQTT page's patch set the beer setpoint to 18.5 degC (was ${demoSetpoint.value})`,
  );
  t.equal(beer.sensorId.id, 'Beer Sensor', 'the demo seeds the beer sensor by the name a brewer uses');
  const room = await postJson(`${cli.base}/edge-one/blocks/read`, { id: 'Room Sensor' });
  t.equal(room.status, 200, 'the first-fermentation page named the discovered sensor');
  t.equal(room.body.type, 'TempSensorOneWire');
  const profile = (await postJson(`${cli.base}/edge-one/blocks/read`, { id: 'Ferment Profile' })).body.data;
  t.equal(profile.targetId.id, 'Beer Setpoint', 'the profile drives the beer setpoint');
  t.ok(Math.abs(Date.parse(profile.start) - Date.now()) < limit(300_000), 'the profile started when its command ran');
  t.ok(
    Math.abs(toC(beer.setting.value) - 18) < 0.01,
    `the setpoint follows the profile's first point, 18 degC (setting ${beer.setting.value} degF)`,
  );

  const all = (await postJson(`${cli.base}/edge-one/blocks/all/read`)).body as Array<{
    id: string;
    type: string;
    data: { address?: string };
  }>;
  const types = all.map((b) => b.type);
  t.ok(types.includes('OneWireBus'), 'OneWireBus blocks after discover');
  t.ok(types.includes('DS2413'), 'the spare DS2413 after discover');
  t.ok(
    all.some((b) => b.type === 'TempSensorOneWire' && b.data.address === '2801c0000000000b'),
    'the room sensor after discover',
  );
});
