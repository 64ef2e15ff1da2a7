// Deleting the device in Home Assistant clears its discovery configs on the broker (an empty
// retained message on each, as Home Assistant's MQTT integration sends). edgeblocks never listened
// for Home Assistant's birth message, so the entities came back one at a time, as their blocks were
// written, and a new block came back alone. Now a deleted device stays deleted until Home
// Assistant restarts (its birth message `online` on homeassistant/status) or edgeblocks connects
// again (a restart), and then comes back whole, the alert binary_sensors with it.
// tags: slow (a real Mosquitto, services restarted)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { CONDITION_KINDS } from '../../src/alerts/types.js';
import { startApp, type RunningApp } from '../helpers/app.js';
import { logLines, type LogLine } from '../helpers/log-lines.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { retainedTopics } from '../helpers/retained-topics.js';
import { until } from '../helpers/until.js';
import { Recorder } from '../mqtt/fixtures.js';

const DEVICE = 'homeassistant/+/edgeblocks_ferm/+/config';

/** The retained (non-empty) topics a new subscriber to `filters` reads (retained-topics.ts). */
const retained = (url: string, ...filters: string[]) => retainedTopics(url, filters);

async function sensor(rt: RunningApp, id: string): Promise<number> {
  const res = await rt.post('blocks/create', { id, type: 'TempSensorMock', data: { setting: 20 } });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.nid;
}

/**
 * A controller `ferm` with Home Assistant on and two sensors, on a real Mosquitto or its embedded
 * broker (whose access rules let a client clear a config, as Home Assistant does, but not write
 * one), once its whole device is retained: its config topics.
 */
async function announcedDevice(t: Test, embedded = false) {
  const mosquitto = embedded ? null : await startMosquitto();
  if (mosquitto) t.teardown(() => mosquitto.stop());
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-ha-birth-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const options = {
    mqttUrl: mosquitto?.url ?? 'embedded',
    serviceId: 'ferm',
    homeAssistant: 'true',
    emitInterval: '200',
  };
  const { log, lines } = logLines();
  const rt = await startApp(options, { dataDir, log });
  t.teardown(() => rt.close());
  const broker = { url: mosquitto?.url ?? `mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}` };
  const nids = [await sensor(rt, 'Beer'), await sensor(rt, 'Fridge')];
  const blockConfigs = nids.map((nid) => `homeassistant/sensor/edgeblocks_ferm/${nid}_value/config`);
  // Both sensors and an alert binary_sensor per condition; in one read (aedes may hand a new
  // subscriber its retained copies after the marker).
  let device: string[] = [];
  await until(
    async () => (device = await retained(broker.url, DEVICE)).length === blockConfigs.length + CONDITION_KINDS.length,
    'the whole device announced',
  );
  t.ok(
    device.some((c) => c.includes('/alert_')),
    'the alert binary_sensors are part of the device',
  );
  return { broker, rt, options, dataDir, device, lines };
}

/** What Home Assistant does when its user deletes the device: an empty retained message on every config. */
async function deleteInHomeAssistant(t: Test, url: string, device: string[], lines: LogLine[]): Promise<void> {
  const ha = await Recorder.connect(url);
  t.teardown(() => ha.end());
  for (const topic of device) await ha.publish(topic, '', true);
  await until(async () => (await retained(url, DEVICE)).length === 0, 'the device deleted');
  await until(() => lines.some((l) => /was deleted there/.test(l.msg)), 'the controller to see the delete');
}

for (const embedded of [false, true])
  t.test(
    `${embedded ? 'embedded broker' : 'mosquitto'}: a device deleted in Home Assistant stays deleted, then comes back whole at its birth message`,
    async (t) => {
      const { broker, rt, device, lines } = await announcedDevice(t, embedded);
      const bus = await Recorder.connect(broker.url);
      t.teardown(() => bus.end());
      await bus.subscribe(DEVICE, 'svc/ha/ferm/+');
      await deleteInHomeAssistant(t, broker.url, device, lines);

      // A block written, and a block made: before, each came back as an entity of its own.
      const from = bus.messages.length;
      t.equal(
        (await rt.post('blocks/write', { id: 'Beer', type: 'TempSensorMock', data: { setting: 21 } })).status,
        200,
      );
      const third = await sensor(rt, 'Wort');
      // The new block's state is published after everything the write and the create sent.
      await bus.waitFor((m) => m.topic === `svc/ha/ferm/${third}`, 'the new block state', 5000, from);
      t.same(
        bus.messages
          .slice(from)
          // A live config (a retained copy is what the broker hands a new subscription, late on aedes).
          .filter((m) => !m.retain && m.topic.startsWith('homeassistant/') && m.payload.length > 0)
          .map((m) => m.topic),
        [],
        'no entity comes back one at a time',
      );

      // Home Assistant restarts: its birth message.
      const ha = await Recorder.connect(broker.url);
      t.teardown(() => ha.end());
      await ha.publish('homeassistant/status', 'online');
      const whole = [...device, `homeassistant/sensor/edgeblocks_ferm/${third}_value/config`].sort();
      // One read: aedes may hand a new subscriber its retained copies after the marker.
      let back: string[] = [];
      await until(
        async () => (back = await retained(broker.url, DEVICE)).length === whole.length,
        'the device back whole',
      );
      t.same(back, whole, 'every block entity and alert binary_sensor');
    },
  );

t.test('a device deleted in Home Assistant comes back whole when edgeblocks restarts', async (t) => {
  const { broker, rt, options, dataDir, device, lines } = await announcedDevice(t);
  await deleteInHomeAssistant(t, broker.url, device, lines);
  await rt.close();
  const again = await startApp(options, { dataDir });
  t.teardown(() => again.close());
  let back: string[] = [];
  await until(
    async () => (back = await retained(broker.url, DEVICE)).length === device.length,
    'the device back whole',
  );
  t.same(back, device);
});

t.test('a flood of birth messages is answered at most once a second, not once each', async (t) => {
  const { broker, rt } = await announcedDevice(t);
  const bus = await Recorder.connect(broker.url);
  t.teardown(() => bus.end());
  await bus.subscribe(DEVICE, 'svc/ha/ferm/+');
  const beer = `homeassistant/sensor/edgeblocks_ferm/${(await rt.post('blocks/read', { id: 'Beer' })).body.nid}_value/config`;
  const ha = await Recorder.connect(broker.url);
  t.teardown(() => ha.end());
  const from = bus.messages.length;
  for (let i = 0; i < 50; i++) await ha.publish('homeassistant/status', 'online');
  await bus.waitFor((m) => m.topic === beer && !m.retain, 'the device announced again', 5000, from);
  // Everything the births made the controller send before this block's state went out first.
  const marker = await sensor(rt, 'Marker');
  await bus.waitFor((m) => m.topic === `svc/ha/ferm/${marker}`, 'the new block state', 5000, from);
  const answers = bus.on(beer, from).filter((m) => !m.retain).length;
  t.ok(answers <= 2, `answered ${answers} times (the first at once, one more when the second ends)`);
});
