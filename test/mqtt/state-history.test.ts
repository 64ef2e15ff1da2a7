// State (retained, within one interval) and history (logged data, postfixed units, numbers only).
import t from 'tap';
import ms from 'ms';
import { startApp } from '../helpers/app.js';
import { Recorder, SERVICE_ID, topic, until, VARIANTS } from './fixtures.js';

const INTERVAL = 200;

function allNumbers(value: unknown, path = 'data'): string[] {
  if (typeof value === 'number') return [];
  if (value !== null && typeof value === 'object' && !Array.isArray(value))
    return Object.entries(value).flatMap(([k, v]) => allNumbers(v, `${path}.${k}`));
  return [`${path} is ${JSON.stringify(value)}`];
}

for (const variant of VARIANTS) {
  t.test(variant.name, async (t) => {
    const bus = await variant.setup();
    t.teardown(() => bus.close());
    const rt = await startApp({ ...bus.overrides, emitInterval: String(INTERVAL) });
    t.teardown(() => rt.close());
    const { app } = rt;
    await until(() => app.mqtt.connected, 'the runtime to connect');

    t.equal(
      (
        await rt.post('blocks/create', {
          id: 'Beer Sensor',
          type: 'TempSensorMock',
          data: { setting: 21.5, connected: true },
        })
      ).status,
      201,
    );
    t.equal(
      (
        await rt.post('blocks/create', {
          id: 'Loose Sensor',
          type: 'TempSensorMock',
          data: { setting: 19, connected: false },
        })
      ).status,
      201,
    );
    t.equal(
      (
        await rt.post('blocks/create', {
          id: 'Beer Setpoint',
          type: 'SetpointSensorPair',
          data: { 'sensorId<>': 'Beer Sensor', storedSetting: 20, enabled: true },
        })
      ).status,
      201,
    );
    const emittedStates = () => (app.status().mqtt as { emitted: { state: number } }).emitted.state;
    const before = emittedStates();
    await until(() => emittedStates() > before, 'a state emission after the changes');

    t.test('state is retained and fresh within one interval', async (t) => {
      const sub = await Recorder.connect(bus.brokerUrl(app));
      t.teardown(() => sub.end());
      const subscribedAt = performance.now();
      await sub.subscribe(topic('state'));
      const retained = await sub.waitFor((m) => m.retain, 'the retained state', 1000);
      const state = retained.json();
      t.equal(state.key, SERVICE_ID);
      t.equal(state.type, 'Spark.state');
      t.equal(ms(state.ttl), 6 * INTERVAL, `ttl ${state.ttl} is six intervals`);
      t.equal(state.data.status.online, true);
      t.equal(state.data.status.serviceId, SERVICE_ID);
      t.type(state.data.status.uptime, 'number');
      t.equal(state.data.status.mqtt.connected, true);
      t.ok(
        state.data.blocks.some((b: any) => b.id === 'Beer Sensor' && b.data.value.__objtype === 'Quantity'),
        'blocks in default mode',
      );
      t.ok(
        state.data.relations.some((r: any) => r.source === 'Beer Sensor' && r.target === 'Beer Setpoint'),
        'relations',
      );
      t.ok(Array.isArray(state.data.claims), 'claims');

      const live = await sub.waitFor((m) => !m.retain, 'a live state', INTERVAL * 3);
      // Loose bound (timers in a busy test process are late): what matters is one interval, not the 5 s default or a multiple.
      t.ok(
        live.at - subscribedAt <= INTERVAL * 1.5,
        `a live state arrived ${Math.round(live.at - subscribedAt)} ms after subscribing (interval ${INTERVAL} ms)`,
      );
    });

    t.test('history carries logged data, postfixed units, numbers only', async (t) => {
      const sub = await Recorder.connect(bus.brokerUrl(app));
      t.teardown(() => sub.end());
      await sub.subscribe(topic('history'));
      const msg = await sub.waitFor(() => true, 'a history message', INTERVAL * 3);
      t.equal(msg.retain, false, 'history is not retained');
      const history = msg.json();
      t.same(Object.keys(history).sort(), ['data', 'key']);
      t.equal(history.key, SERVICE_ID);
      t.same(history.data['Beer Sensor'], { 'value[degC]': 21.5, connected: 1 });
      t.same(history.data['Loose Sensor'], { connected: 0 }, 'a null value is left out, false is 0');
      t.equal(history.data['Beer Setpoint']['storedSetting[degC]'], 20);
      t.type(history.data.SysInfo['uptime[second]'], 'number');
      t.same(allNumbers(history.data), [], 'every leaf is a number');
    });
  });
}
