// A setpoint's Home Assistant number where a Setpoint Profile meets it, on a real Mosquitto: the
// number shows the setting in use, not the stored one. Driven, that is the profile's setting; let
// go (the profile deleted), the setpoint has no setting until the brewer gives one
// (test/control/profile-let-go.test.ts), and the number reads unknown, as the dashboard's field
// reads "none", not the stored 20 degC as if it were held. Set from Home Assistant (its stored
// value too), the setpoint takes over and the number shows it. The same after a restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startApp, type RunningApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { Recorder, until } from '../mqtt/fixtures.js';

const NODE = 'edgeblocks_edge-one';
const link = (id: string) => ({ __objtype: 'Link', id });
const degC = (value: number) => ({ __objtype: 'Quantity', unit: 'degC', value });

/**
 * What Home Assistant's MQTT number shows for a state message: the value_template rendered (Jinja
 * renders None as 'None'), and 'None', its payload_reset, as unknown (components/mqtt/number.py).
 */
function haNumber(config: any, state: Record<string, unknown>): number | 'unknown' {
  const m = /^\{\{ value_json\.(\w+) \}\}$/.exec(config.value_template);
  if (!m) throw new Error(`value_template not rendered by this test: ${config.value_template}`);
  const v = state[m[1]!];
  const rendered = v === null || v === undefined ? 'None' : String(v);
  return rendered === (config.payload_reset ?? 'None') ? 'unknown' : Number(rendered);
}

t.test(
  'a let-go setpoint reads unknown in Home Assistant, a driven one its driven setting; setting it there takes over',
  async (t) => {
    const broker = await startMosquitto();
    t.teardown(() => broker.stop());
    const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-ha-let-go-'));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const start = () => startApp({ mqttUrl: broker.url, homeAssistant: 'true', emitInterval: '200' }, { dataDir });
    let rt: RunningApp = await start();
    t.teardown(() => rt.close());
    const ok = async (route: string, body: unknown) => {
      const res = await rt.post(route, body);
      if (res.status >= 300) throw new Error(`${route}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const setpoint = () => rt.app.runtime.read({ id: 'Beer Setpoint' }).json().data as Record<string, any>;

    await ok('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: degC(14) } });
    const sp = await ok('blocks/create', {
      id: 'Beer Setpoint',
      type: 'SetpointSensorPair',
      data: { enabled: true, sensorId: link('Beer Sensor'), storedSetting: degC(20) },
    });
    await ok('blocks/create', {
      id: 'Profile',
      type: 'SetpointProfile',
      data: {
        enabled: true,
        targetId: link('Beer Setpoint'),
        start: new Date(Date.now() - 3_600_000).toISOString(),
        points: [
          { time: 0, temperature: degC(12) },
          { time: 86_400, temperature: degC(12) },
        ],
      },
    });

    const numberTopic = `homeassistant/number/${NODE}/${sp.nid}_setting/config`;
    const w = await Recorder.connect(broker.url);
    t.teardown(() => w.end());
    await w.subscribe('homeassistant/#', 'svc/ha/#');
    const latest = (topic: string) => {
      const m = w.on(topic).at(-1);
      return m && m.payload.length ? m.json() : undefined;
    };
    /** What Home Assistant's number shows now, from the retained config and the last state. */
    const shown = () => {
      const config = latest(numberTopic);
      const state = config && latest(config.state_topic);
      return config && state ? haNumber(config, state) : undefined;
    };

    await until(() => setpoint().claimedBy.id === 'Profile', 'the profile to drive the setpoint');
    await until(() => shown() === 12, 'Home Assistant to show the setting in use, 12 degC (not the stored 20)');
    t.equal(shown(), 12, 'driven: the setting the profile gives');

    await ok('blocks/delete', { id: 'Profile' });
    // The claim goes with the delete; the setting with the setpoint's next update.
    await until(
      () => setpoint().claimedBy.id === null && setpoint().setting.value === null,
      'the profile to let go: no setting',
    );
    t.equal(setpoint().settingMode, 'CLAIMED', 'the setpoint has no setting until one is given');
    await until(() => shown() === 'unknown', 'Home Assistant to show unknown');
    t.equal(shown(), 'unknown', 'let go: unknown, not the stored 20 degC');

    // After a restart, too: the retained state is the truth, not the stored setting.
    await rt.close();
    const from = w.messages.length;
    rt = await start();
    await w.waitFor((m) => m.topic === latest(numberTopic)?.state_topic, 'the state after the restart', 8000, from);
    await until(() => setpoint().value.value !== null, "the restarted setpoint's first update", 8000);
    const updated = w.messages.length;
    await w.waitFor((m) => m.topic === latest(numberTopic)?.state_topic, 'a state after that update', 8000, updated);
    t.equal(shown(), 'unknown', 'after a restart: still unknown');

    // Set from Home Assistant, to the very value it had stored: it takes over.
    w.client.publish(latest(numberTopic).command_topic, '20');
    await until(() => setpoint().setting.value === 20, 'the setting from Home Assistant to be used');
    t.equal(setpoint().settingMode, 'STORED', 'the setpoint takes over');
    await until(() => shown() === 20, 'Home Assistant to show 20');
    t.equal(shown(), 20, 'the number shows the setting it gave');

    w.client.publish(latest(numberTopic).command_topic, '18.5');
    await until(() => shown() === 18.5, 'Home Assistant to show 18.5');
    t.equal(setpoint().setting.value, 18.5, 'and another value is used');
  },
);
