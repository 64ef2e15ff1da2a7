// app.mqtt: the publish/subscribe facility other subsystems (the datastore) use, on a topic of its
// own: the datastore's topics are the controller's alone on the embedded broker (src/mqtt/acl.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { Recorder, until, VARIANTS } from './fixtures.js';

for (const variant of VARIANTS) {
  t.test(variant.name, async (t) => {
    const bus = await variant.setup();
    t.teardown(() => bus.close());
    const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-bus-'));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const config = loadConfig(
      { host: '127.0.0.1', port: '0', httpsPort: '0', dataDir, emitInterval: '5000', ...bus.overrides },
      {},
    );
    const app = await createApp(config, { log: silentLogger });
    t.teardown(() => app.stop());

    const received: Array<[string, unknown]> = [];
    // Subscribed before start: carried over to the connection.
    const unsubscribe = app.mqtt.subscribe('svc/bus-test/+', (topic, payload) => received.push([topic, payload]));
    t.equal(
      app.mqtt.publish('svc/bus-test/x', { changed: [] }),
      false,
      'nothing is sent (or queued) before the connection',
    );
    await app.start();
    await until(() => app.mqtt.connected, 'the runtime to connect');

    const client = await Recorder.connect(bus.brokerUrl(app));
    t.teardown(() => client.end());
    await client.subscribe('svc/bus-test/#');
    t.equal(app.mqtt.publish('svc/bus-test/edge-one', { deleted: ['edge-one:a'] }), true);
    const out = await client.waitFor((m) => m.topic === 'svc/bus-test/edge-one', 'the published event', 2000);
    t.same(out.json(), { deleted: ['edge-one:a'] }, 'objects go out as JSON');
    t.equal(out.retain, false);

    // Other publishers reach the handler, JSON-decoded; bad JSON is dropped; empty is null.
    await client.publish('svc/bus-test/other', JSON.stringify({ changed: [{ id: 'd', namespace: 'other' }] }));
    await client.publish('svc/bus-test/other', '{nope');
    await client.publish('svc/bus-test/other', '');
    await client.publish('svc/bus-test/other/deeper', '{}');
    await until(() => received.some(([, p]) => p === null), 'the empty message');
    t.same(
      received.filter(([topic]) => topic === 'svc/bus-test/other'),
      [
        ['svc/bus-test/other', { changed: [{ id: 'd', namespace: 'other' }] }],
        ['svc/bus-test/other', null],
      ],
    );
    t.notOk(
      received.some(([topic]) => topic === 'svc/bus-test/other/deeper'),
      'the filter is honoured',
    );

    const barrier: unknown[] = [];
    app.mqtt.subscribe('svc/barrier', (_topic, payload) => barrier.push(payload));
    await until(() => app.mqtt.publish('svc/barrier', 'true') && barrier.length > 0, 'the barrier subscription');
    unsubscribe();
    const count = received.length;
    await client.publish('svc/bus-test/other', '{"after":true}');
    await client.publish('svc/barrier', '"last"');
    // Same connection, same order: once "last" arrived, "after" would have too.
    await until(() => barrier.includes('last'), 'the barrier message');
    t.equal(received.length, count, 'no delivery after unsubscribe');

    t.equal(app.mqtt.publish('svc/bus-test/retained-test', 'raw text', { retain: true }), true);
    const late = await Recorder.connect(bus.brokerUrl(app));
    t.teardown(() => late.end());
    await late.subscribe('svc/bus-test/retained-test');
    const r = await late.waitFor(() => true, 'the retained message', 2000);
    t.same([r.retain, r.payload.toString()], [true, 'raw text'], 'strings go out as they are; retain is honoured');
  });
}
