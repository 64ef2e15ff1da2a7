// Home Assistant gets the entities of what a chip measures: an EnvSensorI2c on a BME280 is a
// temperature, humidity and pressure sensor, on a TMP117 a temperature sensor only; changing the
// chip of a block removes the entities it no longer has (retained configs cleared).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import mqtt from 'mqtt';
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { until } from '../helpers/until.js';

t.test('an EnvSensorI2c announces only what its chip measures, and follows a chip change', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-ha-chips-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const rt = await startApp({ homeAssistant: 'true', emitInterval: '200' }, { dataDir });
  t.teardown(() => rt.close());
  const retained = new Map<string, string>();
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort!}`, { reconnectPeriod: 0 });
  t.teardown(() => client.end(true));
  client.on('message', (topic, payload) => {
    if (payload.length === 0) retained.delete(topic);
    else retained.set(topic, payload.toString());
  });
  await client.subscribeAsync('homeassistant/sensor/#');

  const room = await rt.post('blocks/create', {
    id: 'Room',
    type: 'EnvSensorI2c',
    data: { chip: 'BME280', bus: '1', address: 0x76 },
  });
  t.equal(room.status, 201, JSON.stringify(room.body));
  const probe = await rt.post('blocks/create', {
    id: 'Reference',
    type: 'EnvSensorI2c',
    data: { chip: 'TMP117', bus: '1', address: 0x48 },
  });
  t.equal(probe.status, 201, JSON.stringify(probe.body));
  const keys = (nid: number) =>
    [...retained.keys()]
      .filter((k) => k.includes(`/${nid}_`))
      .map((k) => k.split('/')[3]!.slice(String(nid).length + 1))
      .sort();
  await until(() => keys(room.body.nid).length === 3 && keys(probe.body.nid).length === 1, 'the configs');
  t.same(keys(room.body.nid), ['humidity', 'pressure', 'value'], 'BME280: temperature, humidity, pressure');
  t.same(keys(probe.body.nid), ['value'], 'TMP117: temperature only');

  const patched = await rt.post('blocks/patch', {
    id: 'Room',
    type: 'EnvSensorI2c',
    data: { chip: 'SHT4X', address: 0x44 },
  });
  t.equal(patched.status, 200, JSON.stringify(patched.body));
  await until(() => keys(room.body.nid).length === 2, 'the pressure entity to go');
  t.same(keys(room.body.nid), ['humidity', 'value'], 'an SHT4x has no pressure: that entity is removed');
});
