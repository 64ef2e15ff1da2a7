// A peer's message cannot hurt a controller (issue 45.1). `ferm-2`'s own broker account retains a
// 20 MB `[{},{},...]` on its state and presence topics and sends one on its history topic; before,
// `ferm-1` buffered and parsed it (RSS 91 -> 720 MB) and, with a 256 MB heap, died in JSON.parse on
// every start. Now the controller (the built CLI, with --max-old-space-size=256) speaks MQTT 5 to
// Mosquitto (the docs' ACL), which then never sends it a packet over its maximum, and skips such a
// packet unread from a broker that speaks only 3.1.1 (aedes here): it stays up, connected, without
// growing by more than 50 MB, also when it starts with the message already retained.
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Aedes } from 'aedes';
import mqtt from 'mqtt';
import t from 'tap';
import { spawnOwned, waitForOutput } from '../helpers/children.js';
import { limit } from '../helpers/limits.js';
import { freePort, startMosquitto } from '../helpers/mosquitto.js';
import { assertBuilt, CLI, ROOT, sleep } from '../mqtt/fixtures.js';
import { needTools } from '../helpers/tools.js';

needTools('mosquitto_passwd');

const ACL = path.join(ROOT, 'docs/fleet/mosquitto.acl');
const FLOOD = Buffer.from(`[${'{},'.repeat(7_000_000)}{}]`); // 20 MiB
const secret = (user: string) => `${user}-secret`;
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

interface Broker {
  url: string;
  /** MQTT version the controller should end up speaking. */
  version: 4 | 5;
  /** Whether the controller sees the flood (and counts it skipped) or the broker keeps it back. */
  delivers: boolean;
  stop(): Promise<void>;
}

async function mosquittoWithAcl(dir: string): Promise<Broker> {
  const passwd = path.join(dir, 'passwd');
  execFileSync('mosquitto_passwd', ['-b', '-c', passwd, 'brewblox', secret('brewblox')], { stdio: 'pipe' });
  for (const id of ['ferm-1', 'ferm-2']) execFileSync('mosquitto_passwd', ['-b', passwd, id, secret(id)]);
  const acl = path.join(dir, 'acl');
  copyFileSync(ACL, acl);
  chmodSync(dir, 0o755);
  for (const f of [passwd, acl]) chmodSync(f, 0o644);
  const m = await startMosquitto(undefined, ['allow_anonymous false', `password_file ${passwd}`, `acl_file ${acl}`]);
  return { url: m.url, version: 5, delivers: false, stop: () => m.stop() };
}

/** aedes on TCP with nothing but its defaults: MQTT 3.1.1 only, no packet limit, no ACL. */
async function plainAedes(): Promise<Broker> {
  const aedes = await Aedes.createBroker();
  const server = createServer(aedes.handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `mqtt://127.0.0.1:${port}`,
    version: 4,
    delivers: true,
    stop: async () => {
      await new Promise<void>((r) => aedes.close(() => r()));
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

for (const [name, make] of [
  ['mosquitto with the docs ACL', mosquittoWithAcl],
  ['a broker that speaks only MQTT 3.1.1 (aedes)', plainAedes],
] as const) {
  t.test(`a 20 MB message from a peer (${name}), with a 256 MB heap`, async (t) => {
    assertBuilt();
    const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-peer-flood-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const broker = await make(dir);
    t.teardown(() => broker.stop());
    const httpPort = await freePort();
    const base = `http://127.0.0.1:${httpPort}/ferm-1`;
    const children: ChildProcess[] = [];
    t.teardown(() => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));
    const start = async () => {
      const child = spawnOwned(
        process.execPath,
        [
          '--max-old-space-size=256',
          CLI,
          ...['--service-id', 'ferm-1', '--host', '127.0.0.1', '--port', String(httpPort), '--https-port', '0'],
          ...['--data-dir', path.join(dir, 'data'), '--hardware', 'sim', '--mqtt-url', broker.url],
        ],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, EDGEBLOCKS_MQTT_USERNAME: 'ferm-1', EDGEBLOCKS_MQTT_PASSWORD: secret('ferm-1') },
        },
      );
      children.push(child);
      let out = '';
      child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
      await waitForOutput(child, /mqtt connected to/, 'ferm-1 connecting', limit(20_000), () => out);
      return { child, output: () => out };
    };
    const status = async () => (await (await fetch(`${base}/system/status`)).json()) as any;
    const post = (route: string, body: unknown) =>
      fetch(`${base}/${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const peer = await mqtt.connectAsync(broker.url, {
      username: 'ferm-2',
      password: secret('ferm-2'),
      protocolVersion: 4,
    });
    t.teardown(() => peer.endAsync(true));
    const ui = await mqtt.connectAsync(broker.url, {
      username: 'brewblox',
      password: secret('brewblox'),
      protocolVersion: 4,
    });
    t.teardown(() => ui.endAsync(true));
    // A block written over the MQTT block API after the flood: when ferm-1 has it, it has read
    // past the flood (the broker forwards in order).
    let marker = 0;
    // (Sent again every 2 s: just after a start, ferm-1 may not have subscribed yet.)
    const passedFlood = async () => {
      const id = `Marker ${++marker}`;
      for (let i = 0; i < 200; i++) {
        if (i % 20 === 0)
          await ui.publishAsync(
            'svc/controller/blocks/create',
            JSON.stringify({ serviceId: 'ferm-1', id, type: 'TempSensorMock', data: { setting: 20 } }),
            { qos: 1 },
          );
        if ((await post('blocks/read', { id })).status === 200) return;
        await sleep(100);
      }
      t.fail(`ferm-1 never got ${id}`);
    };

    let ctl = await start();
    await post(
      'blocks/batch/create',
      Array.from({ length: 100 }, (_, i) => ({ id: `Sensor ${i}`, type: 'TempSensorMock', data: { setting: 20 } })),
    );
    await sleep(3000);
    const before = rssMb(ctl.child.pid!);
    const s0 = await status();
    t.equal(s0.mqtt.protocolVersion, broker.version, `ferm-1 speaks MQTT ${broker.version === 5 ? '5' : '3.1.1'}`);

    for (const topic of ['svc/state/ferm-2', 'svc/fleet/ferm-2'])
      await peer.publishAsync(topic, FLOOD, { qos: 1, retain: true });
    await peer.publishAsync('svc/history/ferm-2', FLOOD, { qos: 1 });
    await passedFlood();
    await sleep(1000);
    const s1 = await status();
    const after = rssMb(ctl.child.pid!);
    t.equal(ctl.child.exitCode, null, 'ferm-1 is alive');
    t.equal(s1.mqtt.connects, s0.mqtt.connects, 'and never lost its broker connection');
    t.ok(after - before < 50, `RSS ${before.toFixed(0)} -> ${after.toFixed(0)} MB: within +50 MB`);
    if (broker.delivers) t.ok(s1.mqtt.dropped.oversized >= 2, `skipped unread: ${s1.mqtt.dropped.oversized}`);
    else t.equal(s1.mqtt.dropped.oversized, 0, 'the broker kept them back: nothing to skip');
    t.equal(s1.fleet.controllers, 0, 'no controller listed from the flood');
    if (broker.delivers)
      t.ok(
        await waitForOutput(ctl.child, /skipped unread: \d{8} bytes/, 'the log of the skip', limit(5000), ctl.output),
        'the skip is logged with its size',
      );
    else t.notMatch(ctl.output(), /skipped unread/, 'nothing skipped, nothing logged');

    // A restart with the flood retained on the broker: it comes up and stays up.
    ctl.child.kill('SIGTERM');
    await new Promise((r) => ctl.child.once('exit', r));
    ctl = await start();
    await passedFlood();
    await sleep(1000);
    const s2 = await status();
    t.equal(ctl.child.exitCode, null, 'ferm-1 is alive after a start with the flood retained');
    t.equal(s2.mqtt.connects, 1, 'connected once');
    t.ok(rssMb(ctl.child.pid!) - before < 50, `RSS ${rssMb(ctl.child.pid!).toFixed(0)} MB after the restart`);

    for (const topic of ['svc/state/ferm-2', 'svc/fleet/ferm-2']) await peer.publishAsync(topic, '', { retain: true });
    ctl.child.kill('SIGTERM');
    await new Promise((r) => ctl.child.once('exit', r));
  });
}
