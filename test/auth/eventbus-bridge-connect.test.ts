// The bridge takes a refused user's last will out of its CONNECT by parsing it with mqtt-packet
// and generating it again. The parser takes CONNECTs the generator refuses and throws on (a
// password without a user name, allowed by MQTT 5 §3.1.2.9; an empty client id without a clean
// session). Such a CONNECT ends that connection; it used to throw out of the stream, an uncaught
// exception that stopped the service, caused by a viewer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import mqttPacket from 'mqtt-packet';
import t from 'tap';
import { WebSocket } from 'ws';
import { UsersFile } from '../../src/auth/users.js';
import { withoutRefusedPublishes } from '../../src/mqtt/bridge-publishes.js';
import { startApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { sleep, until } from '../mqtt/fixtures.js';

const str = (s: string) => {
  const b = Buffer.from(s);
  return Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b]);
};

/** The MQTT remaining-length varint. */
function varint(n: number): Buffer {
  const out: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return Buffer.from(out);
}

/** A CONNECT built by hand. */
function connect(version: 4 | 5, flags: number, payload: Buffer[]): Buffer {
  const body = Buffer.concat([
    str('MQTT'),
    Buffer.from([version, flags, 0, 60]),
    ...(version === 5 ? [Buffer.from([0])] : []),
    ...payload,
  ]);
  return Buffer.concat([Buffer.from([0x10]), varint(body.length), body]);
}

const WILL = 0x04;
const CLEAN = 0x02;
const PASSWORD = 0x40;
const create = JSON.stringify({ serviceId: 'edge-one', id: 'By Viewer Will', type: 'TempSensorMock', data: {} });

const CASES: Array<[string, Buffer]> = [
  [
    'MQTT 5: a will and a password without a user name',
    connect(5, WILL | CLEAN | PASSWORD, [
      str('c1'),
      Buffer.from([0]),
      str('svc/controller/blocks/create'),
      str(create),
      str('pw'),
    ]),
  ],
  ['MQTT 3.1.1: an empty client id, no clean session, a will', connect(4, WILL, [str(''), str('t'), str('x')])],
];

for (const [name, bytes] of CASES)
  t.test(`a viewer's CONNECT the parser takes does not throw out of the filter: ${name}`, async (t) => {
    const filter = withoutRefusedPublishes({ user: 'vic', roleOf: () => 'viewer', onRefused: () => undefined });
    const out: Buffer[] = [];
    filter.on('data', (b: Buffer) => out.push(b));
    filter.on('error', () => undefined); // refusing the connection is fine; throwing is not
    let parsedOk = false;
    const p = mqttPacket.parser();
    p.on('packet', () => (parsedOk = true));
    p.on('error', () => undefined);
    p.parse(bytes);
    t.ok(parsedOk, 'mqtt-packet parses it (so the bridge rewrites it)');
    t.doesNotThrow(() => filter.write(bytes), 'the filter does not throw');
    // Whatever passes carries no will.
    const q = mqttPacket.parser();
    let will: unknown = undefined;
    q.on('packet', (pk) => (will = (pk as mqttPacket.IConnectPacket).will));
    q.parse(Buffer.concat(out));
    t.equal(will, undefined, 'no will reaches the broker');
  });

t.test('end to end: a viewer sends such a CONNECT through /eventbus; the service lives on', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-bridge-connect-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const users = new UsersFile(dataDir).load();
  await users.add('vic', 'a long password', 'viewer');
  const token = users.createToken('vic');
  const rt = await startApp({ auth: 'true', mqttUrl: broker.url }, { dataDir });
  t.teardown(() => rt.close());
  await until(() => rt.app.mqtt.connected, 'the controller on the broker', 8000);
  const uncaught: unknown[] = [];
  const onUncaught = (e: unknown) => uncaught.push(e);
  // tap has its own listener; ours records the error so the test names it.
  process.prependListener('uncaughtException', onUncaught);
  t.teardown(() => process.off('uncaughtException', onUncaught));
  const eventbus = rt.base.replace(/^http/, 'ws').replace(/\/[^/]+$/, '/eventbus');
  const ws = new WebSocket(eventbus, 'mqtt', { headers: { authorization: `Bearer ${token}` } });
  ws.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(CASES[0]![1]);
  await sleep(1000);
  ws.terminate();
  t.ok(rt.app.mqtt.connected, 'the service is still up');
  t.same(
    uncaught.map((e) => (e as Error).message),
    [],
    'no uncaught exception (in the service: main.ts crashes, outputs safe, exit 1)',
  );
});
