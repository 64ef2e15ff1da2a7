// Roles on the /eventbus bridge to an external broker. The bridge is a byte pipe, and the broker
// sees every bridged connection come from the controller's own address: a Mosquitto that lets
// local clients in without a password (as Brewblox's does) would let any logged-in user write
// through it. The one write rule (src/shared/roles.ts) holds there too: a viewer's publishes are
// dropped before they reach the broker and counted; its reads go on; a role change counts at once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import t from 'tap';
import { UsersFile } from '../../src/auth/users.js';
import { startApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { sleep, until } from '../mqtt/fixtures.js';

const PASSWORD = 'a long password';

t.test('a viewer publishes nothing through the bridge; an admin does; a role change counts at once', async (t) => {
  const broker = await startMosquitto(); // anonymous clients allowed, on 127.0.0.1
  t.teardown(() => broker.stop());
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-bridge-roles-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const users = new UsersFile(dataDir).load();
  await users.add('alice', PASSWORD);
  await users.add('vic', PASSWORD, 'viewer');
  const tokens = { alice: users.createToken('alice'), vic: users.createToken('vic') };
  const rt = await startApp({ auth: 'true', mqttUrl: broker.url, emitInterval: '200' }, { dataDir });
  t.teardown(() => rt.close());
  await until(() => rt.app.mqtt.connected, 'the controller on the broker', 8000);
  const eventbus = rt.base.replace(/^http/, 'ws').replace(/\/[^/]+$/, '/eventbus');

  const connect = async (who: keyof typeof tokens, opts: IClientOptions = {}): Promise<MqttClient> => {
    const client = await mqtt.connectAsync(eventbus, {
      protocolVersion: 4,
      reconnectPeriod: 0,
      wsOptions: { headers: { authorization: `Bearer ${tokens[who]}` } },
      ...opts,
    });
    t.teardown(() => client.endAsync(true));
    return client;
  };
  const create = (id: string) => JSON.stringify({ serviceId: 'edge-one', id, type: 'TempSensorMock', data: {} });
  const exists = (id: string) => rt.app.runtime.find(id) !== undefined;

  const vic = await connect('vic');
  const states: string[] = [];
  vic.on('message', (topic) => states.push(topic));
  await vic.subscribeAsync('svc/state/edge-one');
  await until(() => states.length > 0, 'a viewer reads the state through the bridge');

  await vic.publishAsync('svc/controller/blocks/create', create('By Viewer'));
  const alice = await connect('alice');
  await alice.publishAsync('svc/controller/blocks/create', create('By Admin'));
  await until(() => exists('By Admin'), 'the admin block');
  // The viewer's message went first on its own connection; give it as long again as the admin's took.
  await sleep(300);
  t.notOk(exists('By Viewer'), "the viewer's publish did not reach the broker");
  t.ok(vic.connected, 'the viewer stays connected (as on the embedded broker)');
  t.equal((rt.app.status() as any).mqtt.refused.publish, 1, 'counted in system/status');

  // A last will is a publish the broker makes later for the client: a viewer's is taken out.
  for (const [who, id, version] of [
    ['vic', 'By Viewer Will', 4],
    ['vic', 'By Viewer Will 5', 5],
    ['alice', 'By Admin Will', 4],
  ] as const) {
    const willing = await connect(who, {
      protocolVersion: version,
      will: { topic: 'svc/controller/blocks/create', payload: Buffer.from(create(id)), qos: 0, retain: false },
    });
    (willing.stream as unknown as { destroy(): void }).destroy(); // gone without a DISCONNECT: the broker sends the will
  }
  await until(() => exists('By Admin Will'), "the admin's will");
  await sleep(300);
  t.notOk(exists('By Viewer Will'), "the viewer's will (MQTT 3.1.1) was not left with the broker");
  t.notOk(exists('By Viewer Will 5'), "the viewer's will (MQTT 5) was not left with the broker");

  // Demoted while connected: the next publish is dropped; promoted: the next one goes through.
  users.setRole('alice', 'viewer');
  users.setRole('vic', 'admin');
  // Any request makes the service read the users file again (else it looks once a second).
  const ping = await fetch(`${rt.base}/system/ping`, { headers: { authorization: `Bearer ${tokens.vic}` } });
  t.equal(ping.status, 200);
  await alice.publishAsync('svc/controller/blocks/create', create('Demoted Admin'));
  await vic.publishAsync('svc/controller/blocks/create', create('Promoted Viewer'));
  await until(() => exists('Promoted Viewer'), 'the promoted viewer writes');
  await sleep(300);
  t.notOk(exists('Demoted Admin'), 'the demoted admin writes nothing');
});

t.test('bytes that are not MQTT end the filtered connection: nothing after them passes unwalked', async (t) => {
  const { withoutRefusedPublishes } = await import('../../src/mqtt/bridge-publishes.js');
  const refused: string[] = [];
  const filter = withoutRefusedPublishes({
    user: 'vic',
    roleOf: () => 'viewer',
    onRefused: (topic) => refused.push(topic),
  });
  const passed: Buffer[] = [];
  filter.on('data', (b: Buffer) => passed.push(b));
  const failed = new Promise<Error>((resolve) => filter.once('error', resolve));
  const publish = (topic: string) =>
    Buffer.concat([Buffer.from([0x30, 2 + topic.length, 0, topic.length]), Buffer.from(topic)]);
  const pingreq = Buffer.from([0xc0, 0]);
  filter.write(Buffer.concat([publish('svc/a'), pingreq]));
  // A fifth remaining-length byte, then a publish.
  filter.write(Buffer.concat([Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0x01]), publish('svc/b')]));
  t.match((await failed).message, /not MQTT/);
  t.same(refused, ['svc/a'], "the viewer's publish before the junk was dropped");
  t.same(Buffer.concat(passed), pingreq, 'only the ping passed');
});
