// The offline state: the broker delivers the last will when the runtime is killed (-9), and the
// runtime publishes the same retained offline state itself on a clean shutdown.
// tags: slow (kill -9 of the built CLI)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { assertBuilt, KILLABLE_BROKERS, Recorder, SERVICE_ID, spawnCli, topic, VARIANTS } from './fixtures.js';

const isOffline = (m: { json(): any }) => {
  const s = m.json();
  return s.type === 'Spark.state' && s.data.status.online === false;
};
const isOnline = (m: { json(): any }) => m.json().data.status.online === true;

t.before(() => assertBuilt());

for (const kind of KILLABLE_BROKERS) {
  t.test(`${kind.name}: kill -9 of the runtime delivers the last will`, async (t) => {
    const broker = await kind.start();
    t.teardown(() => broker.stop());
    const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-will-'));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const sub = await Recorder.connect(broker.url);
    t.teardown(() => sub.end());
    await sub.subscribe(topic('state'));

    const cli = await spawnCli(
      ['--mqtt-url', broker.url, '--data-dir', dataDir, '--emit-interval', '200', '--service-id', SERVICE_ID],
      t,
    );
    t.teardown(() => cli.child.kill('SIGKILL'));
    await sub.waitFor(isOnline, 'the online state', 5000);
    const from = sub.messages.length;
    cli.child.kill('SIGKILL');
    await cli.exited;

    const will = (await sub.waitFor(isOffline, 'the last will', 5000, from)).json();
    t.equal(will.key, SERVICE_ID);
    t.type(will.ttl, 'string');
    t.same(will.data.blocks, [], 'no blocks');
    t.equal(will.data.status.serviceId, SERVICE_ID);

    const late = await Recorder.connect(broker.url);
    t.teardown(() => late.end());
    await late.subscribe(topic('state'));
    const retained = await late.waitFor((m) => m.retain, 'the retained state', 2000);
    t.ok(isOffline(retained), 'the will is retained: a late subscriber sees the service offline');
  });

  t.test(`${kind.name}: SIGTERM publishes the offline state and exits 0`, async (t) => {
    const broker = await kind.start();
    t.teardown(() => broker.stop());
    const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-term-'));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const sub = await Recorder.connect(broker.url);
    t.teardown(() => sub.end());
    await sub.subscribe(topic('state'));
    const cli = await spawnCli(['--mqtt-url', broker.url, '--data-dir', dataDir, '--emit-interval', '200'], t);
    t.teardown(() => cli.child.kill('SIGKILL'));
    await sub.waitFor(isOnline, 'the online state', 5000);
    const from = sub.messages.length;
    cli.child.kill('SIGTERM');
    t.equal(await cli.exited, 0, 'clean exit');
    // A clean DISCONNECT discards the will, so this is the runtime's own publication.
    const offline = await sub.waitFor(isOffline, 'the offline state', 3000, from);
    t.same(offline.json().data.blocks, []);
  });
}

for (const variant of VARIANTS) {
  t.test(`${variant.name}: app stop publishes the retained offline state`, async (t) => {
    const bus = await variant.setup();
    t.teardown(() => bus.close());
    const rt = await startApp({ ...bus.overrides, emitInterval: '200' });
    t.teardown(() => rt.close());
    const sub = await Recorder.connect(bus.brokerUrl(rt.app));
    t.teardown(() => sub.end());
    await sub.subscribe(topic('state'));
    await sub.waitFor(isOnline, 'the online state', 3000);
    const from = sub.messages.length;
    await rt.close();
    const offline = await sub.waitFor(isOffline, 'the offline state', 3000, from);
    t.same(offline.json().data.blocks, []);
    t.equal(
      sub.messages.slice(sub.messages.indexOf(offline) + 1).filter(isOnline).length,
      0,
      'nothing online after it',
    );
  });
}
