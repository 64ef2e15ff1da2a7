// Issue 29.5: several controllers on one Mosquitto with one broker user each, limited by the ACL
// example in docs/fleet/mosquitto.acl (the file itself is what the broker loads): each controller
// publishes its own state, presence, history and Home Assistant topics and reads the others'
// presence; with a controller's credentials nothing can be written on another controller's topics
// or blocks.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { VERSION } from '../../src/shared/version.js';
import { startApp, type RunningApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { Recorder, ROOT, sleep, until } from '../mqtt/fixtures.js';
import { needTools } from '../helpers/tools.js';

needTools('mosquitto_passwd');

const ACL = path.join(ROOT, 'docs/fleet/mosquitto.acl');
const IDS = ['ferm-1', 'ferm-2'] as const;
const secret = (user: string) => `${user}-secret`;

t.test('one broker user per controller, limited to its own topics by the ACL example', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-fleet-acl-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const passwd = path.join(dir, 'passwd');
  execFileSync('mosquitto_passwd', ['-b', '-c', passwd, 'brewblox', secret('brewblox')], { stdio: 'pipe' });
  execFileSync('mosquitto_passwd', ['-b', passwd, 'homeassistant', secret('homeassistant')], { stdio: 'pipe' });
  for (const id of IDS) execFileSync('mosquitto_passwd', ['-b', passwd, id, secret(id)], { stdio: 'pipe' });
  const acl = path.join(dir, 'acl');
  copyFileSync(ACL, acl);
  // mosquitto started as root reads its files as the mosquitto user
  chmodSync(dir, 0o755);
  for (const f of [passwd, acl]) chmodSync(f, 0o644);
  const broker = await startMosquitto(undefined, [
    'allow_anonymous false',
    `password_file ${passwd}`,
    `acl_file ${acl}`,
  ]);
  t.teardown(() => broker.stop());
  // Issue 50.5: the broker logs its warnings (log_type warning) to the output read here.
  t.equal(
    broker
      .output()
      .match(/^.*warning.*$/gim)
      ?.join('\n') ?? '',
    '',
    'mosquitto loads the ACL without a warning',
  );

  const ui = await Recorder.connect(broker.url, { username: 'brewblox', password: secret('brewblox') });
  t.teardown(() => ui.end());
  await ui.subscribe('svc/#');
  const ha = await Recorder.connect(broker.url, { username: 'homeassistant', password: secret('homeassistant') });
  t.teardown(() => ha.end());
  await ha.subscribe('homeassistant/#', 'svc/ha/#');

  const apps: Record<string, RunningApp> = {};
  for (const id of IDS) {
    apps[id] = await startApp({
      serviceId: id,
      mqttUrl: broker.url,
      mqttUsername: id,
      mqttPassword: secret(id),
      emitInterval: '200',
      homeAssistant: 'true',
      historyIngest: 'own',
    });
    t.teardown(() => apps[id]!.close());
    await apps[id].post('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 18 } });
  }

  // Each controller's own topics get through the ACL.
  for (const id of IDS) {
    await ui.waitFor((m) => m.topic === `svc/state/${id}` && m.json().data.blocks.length > 0, `the state of ${id}`);
    await ui.waitFor(
      (m) => m.topic === `svc/history/${id}` && m.json().data['Beer Sensor'] !== undefined,
      `the history of ${id}`,
    );
    await ha.waitFor(
      (m) =>
        m.topic.startsWith(`homeassistant/sensor/edgeblocks_${id}/`) &&
        m.json().unique_id.startsWith(`edgeblocks_${id}_`),
      `a Home Assistant config of ${id}`,
    );
  }
  // Each reads the other's presence (pattern read svc/fleet/+): the fleet list.
  const fleetOf = async (id: string) =>
    (await (await fetch(`${apps[id]!.base}/fleet`)).json()) as { controllers: any[] };
  for (const [id, other] of [IDS, [...IDS].reverse()]) {
    let seen: any;
    for (let i = 0; i < 100 && !seen?.online; i++, await sleep(50))
      seen = (await fleetOf(id!)).controllers.find((c: any) => c.serviceId === other);
    t.match(seen, { serviceId: other, online: true }, `${id} lists ${other} as online`);
  }

  // The block API: the brewblox user writes a block of ferm-2; only ferm-2 has it.
  await ui.publish(
    'svc/controller/blocks/create',
    JSON.stringify({ serviceId: 'ferm-2', id: 'Only Two', type: 'TempSensorMock', data: { setting: 5 } }),
  );
  await until(() => apps['ferm-2']!.app.runtime.blocks().some((b) => b.id === 'Only Two'), 'the block on ferm-2');
  t.notOk(
    apps['ferm-1']!.app.runtime.blocks().some((b) => b.id === 'Only Two'),
    'ferm-1 did not take the block of ferm-2',
  );

  // With ferm-1's credentials: nothing lands on ferm-2's topics or the block API.
  const rogue = await Recorder.connect(broker.url, {
    username: 'ferm-1',
    password: secret('ferm-1'),
    clientId: 'ferm-1-rogue',
  });
  t.teardown(() => rogue.end());
  const from = ui.messages.length;
  const haFrom = ha.messages.length;
  await rogue.publish(
    'svc/state/ferm-2',
    JSON.stringify({
      key: 'ferm-2',
      type: 'Spark.state',
      ttl: '60s',
      data: { status: { online: false }, blocks: [], relations: [], claims: [] },
    }),
  );
  await rogue.publish('svc/history/ferm-2', JSON.stringify({ key: 'ferm-2', data: { forged: 1 } }));
  await rogue.publish('svc/fleet/ferm-2', JSON.stringify({ serviceId: 'ferm-2', online: false, version: 'forged' }));
  await rogue.publish(
    'svc/controller/blocks/create',
    JSON.stringify({ serviceId: 'ferm-2', id: 'Forged', type: 'TempSensorMock', data: { setting: 99 } }),
  );
  await rogue.publish('homeassistant/sensor/edgeblocks_ferm-2/forged/config', JSON.stringify({ unique_id: 'forged' }));
  // A message the ACL allows, sent last on the same connection: once it is seen, the ones before
  // it would have been delivered too.
  await rogue.publish('svc/history/ferm-1', JSON.stringify({ key: 'ferm-1', data: { marker: 1 } }));
  await ui.waitFor(
    (m) => m.topic === 'svc/history/ferm-1' && m.json().data.marker === 1,
    'the allowed marker',
    5000,
    from,
  );
  await sleep(300);
  const forged = ui.messages
    .slice(from)
    .filter(
      (m) =>
        m.payload.toString().includes('forged') ||
        m.payload.toString().includes('Forged') ||
        (m.topic === 'svc/state/ferm-2' && m.json().data.status.online === false),
    );
  t.same(
    forged.map((m) => m.topic),
    [],
    'no forged message reached another controller or its subscribers',
  );
  t.same(
    ha.messages
      .slice(haFrom)
      .filter((m) => m.payload.toString().includes('forged'))
      .map((m) => m.topic),
    [],
    'no forged Home Assistant config',
  );
  t.notOk(
    apps['ferm-2']!.app.runtime.blocks().some((b) => b.id === 'Forged'),
    'ferm-2 did not take a block written with ferm-1 credentials',
  );
  t.match(
    (await fleetOf('ferm-1')).controllers.find((c: any) => c.serviceId === 'ferm-2'),
    { online: true, version: VERSION },
    'no forged presence of ferm-2',
  );

  // Home Assistant starts (its birth message): every controller announces its device again.
  const birth = ha.messages.length;
  await ha.publish('homeassistant/status', 'online');
  for (const id of IDS)
    await ha.waitFor(
      (m) => !m.retain && m.topic.startsWith(`homeassistant/sensor/edgeblocks_${id}/`) && m.payload.length > 0,
      `${id} announcing its device at Home Assistant's birth`,
      5000,
      birth,
    );

  // Without credentials: refused.
  await t.rejects(
    Recorder.connect(broker.url, { reconnectPeriod: 0, connectTimeout: 2000 }),
    'an anonymous client is refused',
  );
});
