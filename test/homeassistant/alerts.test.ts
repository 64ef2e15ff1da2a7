// Issue 26 in Home Assistant's terms, on a real Mosquitto: the alert binary_sensor's state, read
// the way Home Assistant reads it (its discovery config's state_topic and value_template), goes
// ON when an alert of its kind fires and OFF when it resolves; retained, so a client that
// connects later (Home Assistant after a restart) reads the current state.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import mqtt from 'mqtt';
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { limit } from '../helpers/limits.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { until } from '../alerts/receivers.js';

const CONFIG = 'homeassistant/binary_sensor/edgeblocks_edge-one/alert_control_disabled/config';
/** Home Assistant's entity id rule (homeassistant/core.py VALID_ENTITY_ID). */
const HA_ENTITY_ID = /^(?!.+__)(?!_)[\da-z_]+(?<!_)\.(?!_)[\da-z_]+(?<!_)$/;

class Retained {
  readonly topics = new Map<string, any>();
  private constructor(readonly client: mqtt.MqttClient) {
    client.on('message', (topic, payload) =>
      payload.length ? this.topics.set(topic, JSON.parse(payload.toString())) : this.topics.delete(topic),
    );
  }
  static async connect(url: string): Promise<Retained> {
    const client = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
    const r = new Retained(client);
    await client.subscribeAsync(['homeassistant/binary_sensor/#', 'svc/alerts/#']);
    return r;
  }
  /** The entity's state as Home Assistant computes it: `value_template` is `{{ value_json.<key> }}`. */
  state(configTopic: string): string | undefined {
    const config = this.topics.get(configTopic);
    if (!config) return undefined;
    const key = /^\{\{ value_json\.(\w+) \}\}$/.exec(config.value_template)?.[1];
    if (!key) throw new Error(`unexpected value_template ${config.value_template}`);
    return this.topics.get(config.state_topic)?.[key];
  }
}

t.test('the alert binary_sensor goes ON when the alert fires and OFF when it resolves', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-ha-alerts-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const config = path.join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ alerts: { checkIntervalMs: 100, rules: { resolveAfter: 0.5 } } }));
  const rt = await startApp(
    { config, mqttUrl: broker.url, homeAssistant: 'true', emitInterval: '200' },
    { dataDir: path.join(dir, 'data') },
  );
  t.teardown(() => rt.close());
  const ha = await Retained.connect(broker.url);
  t.teardown(() => ha.client.endAsync());

  await until('the discovery config and an OFF state', limit(5000), () => ha.state(CONFIG) === 'OFF');
  const cfg = ha.topics.get(CONFIG);
  t.equal(cfg.device_class, 'problem');
  t.equal(cfg.unique_id, 'edgeblocks_edge-one_alert_control_disabled');
  // Issue 50, item 7: entity ids in Home Assistant's own style, `_` for the service id's hyphen.
  t.equal(cfg.default_entity_id, 'binary_sensor.edgeblocks_edge_one_alert_control_disabled');
  for (const [topic, c] of ha.topics)
    if (topic.endsWith('/config'))
      t.match(
        c.default_entity_id,
        HA_ENTITY_ID,
        `${topic}: ${c.default_entity_id} is a valid Home Assistant entity id`,
      );

  const put = (enabled: boolean) =>
    fetch(`${rt.base}/settings/enabled`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled }),
    });
  t.equal((await put(false)).status, 200);
  await until('ON after the alert fired', limit(3000), () => ha.state(CONFIG) === 'ON');
  t.same(
    ha.topics.get('svc/alerts/edge-one').active.map((a: any) => a.condition),
    ['control-disabled'],
    'the attributes list names it',
  );
  const other = 'homeassistant/binary_sensor/edgeblocks_edge-one/alert_sensor_null/config';
  t.equal(ha.state(other), 'OFF', 'another kind stays OFF');

  const late = await Retained.connect(broker.url);
  t.teardown(() => late.client.endAsync());
  await until('a late client reads ON from the retained state', limit(3000), () => late.state(CONFIG) === 'ON');

  t.equal((await put(true)).status, 200);
  await until('OFF after the resolve', limit(3000), () => ha.state(CONFIG) === 'OFF');
  t.same(ha.topics.get('svc/alerts/edge-one').active, [], 'the list is empty again');
});
