// Home Assistant availability on its own small retained topic (issue 24.2), on a real Mosquitto:
// `online` while the service runs, `offline` on a clean stop and, after kill -9, from the broker
// as a last will; the Spark.state last will still goes out too (two wills, two connections).
// No entity's availability points at the state message (30-140 KB every interval).
// tags: slow (kill -9 of the built CLI, a real Mosquitto)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { assertBuilt, Recorder, SERVICE_ID, spawnCli, topic } from '../mqtt/fixtures.js';

const AVAILABILITY = `svc/ha/${SERVICE_ID}/availability`;
const text = (m: { payload: Buffer }) => m.payload.toString();

t.before(() => assertBuilt());

t.test('kill -9: the broker marks the entities offline, and the Spark.state will still goes out', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-ha-will-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const sub = await Recorder.connect(broker.url);
  t.teardown(() => sub.end());
  await sub.subscribe(AVAILABILITY, topic('state'), 'homeassistant/#');

  const cli = await spawnCli(
    [
      '--mqtt-url',
      broker.url,
      '--data-dir',
      dataDir,
      '--emit-interval',
      '200',
      '--home-assistant',
      'true',
      '--service-id',
      SERVICE_ID,
    ],
    t,
  );
  t.teardown(() => cli.child.kill('SIGKILL'));
  await sub.waitFor((m) => m.topic === AVAILABILITY && text(m) === 'online', 'online on the availability topic');
  // The controller's own block (sys info) has no entity; make one so there is a config to read.
  const port = Number(/http listening on http:\/\/[^:]+:(\d+)/.exec(cli.output())![1]);
  const created = await fetch(`http://127.0.0.1:${port}/${SERVICE_ID}/blocks/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'Sensor', type: 'TempSensorMock', data: {} }),
  });
  t.equal(created.status, 201);
  const config = (
    await sub.waitFor((m) => m.topic.startsWith('homeassistant/sensor/') && m.payload.length > 0, 'a config')
  ).json();
  t.same(config.availability, [{ topic: AVAILABILITY }], 'the entity follows the small topic only');

  const from = sub.messages.length;
  cli.child.kill('SIGKILL');
  await cli.exited;
  const offline = await sub.waitFor(
    (m) => m.topic === AVAILABILITY && text(m) === 'offline',
    'offline from the will',
    5000,
    from,
  );
  t.ok(offline, 'availability offline after kill -9');
  const will = await sub.waitFor(
    (m) => m.topic === topic('state') && m.json().data.status.online === false,
    'the Spark.state will',
    5000,
    from,
  );
  t.equal(will.json().data.status.connection_status, 'DISCONNECTED', 'the Spark.state will too');

  const late = await Recorder.connect(broker.url);
  t.teardown(() => late.end());
  await late.subscribe(AVAILABILITY);
  t.equal(
    text(await late.waitFor((m) => m.retain, 'the retained availability', 2000)),
    'offline',
    'retained: Home Assistant starting later sees offline',
  );
});

t.test('a clean stop says offline', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const rt = await startApp({ mqttUrl: broker.url, homeAssistant: 'true', emitInterval: '200' });
  t.teardown(() => rt.close());
  const sub = await Recorder.connect(broker.url);
  t.teardown(() => sub.end());
  await sub.subscribe(AVAILABILITY);
  const first = await sub.waitFor((m) => m.topic === AVAILABILITY, 'the availability');
  t.equal(text(first), 'online');
  // Retained: a client subscribing later (Home Assistant starting after the service) gets it.
  const later = await Recorder.connect(broker.url);
  t.teardown(() => later.end());
  await later.subscribe(AVAILABILITY);
  const retained = await later.waitFor((m) => m.topic === AVAILABILITY, 'the retained availability');
  t.equal(text(retained), 'online');
  t.equal(retained.retain, true);

  const from = sub.messages.length;
  await rt.close();
  await sub.waitFor((m) => m.topic === AVAILABILITY && text(m) === 'offline', 'offline on stop', 3000, from);
  t.equal(sub.messages.slice(from).filter((m) => text(m) === 'online').length, 0, 'nothing online after it');
});

t.test('without Home Assistant there is no availability topic', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const rt = await startApp({ mqttUrl: broker.url, emitInterval: '200' });
  t.teardown(() => rt.close());
  const sub = await Recorder.connect(broker.url);
  t.teardown(() => sub.end());
  await sub.subscribe('svc/ha/#', topic('state'));
  await sub.waitFor((m) => m.topic === topic('state'), 'a state');
  await new Promise((r) => setTimeout(r, 300));
  t.same(
    sub.messages.filter((m) => m.topic.startsWith('svc/ha/')),
    [],
  );
});
