// A switch entity whose actuator's state is not known (its relay board pulled off the bus) must
// read unknown in Home Assistant, not keep its last state. Home Assistant's MQTT switch compares
// the rendered value_template with payload_on and payload_off, and takes 'None' (PAYLOAD_NONE)
// as unknown; anything else matches nothing and leaves the entity as it was. The template is
// rendered here as Home Assistant's Jinja does for the forms the discovery configs use.
import mqtt from 'mqtt';
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { startApp } from '../helpers/app.js';

/** Jinja's rendering of a JSON value: Python's str(). */
const py = (v: unknown): string =>
  v === null || v === undefined ? 'None' : v === true ? 'True' : v === false ? 'False' : String(v);

/** value_template as Home Assistant renders it, for the forms discovery uses (throws on any other). */
function render(template: string, json: Record<string, unknown>): string {
  let m = /^\{\{ value_json\.(\w+) \}\}$/.exec(template);
  if (m) return py(json[m[1]!]);
  m = /^\{\{ value_json\.(\w+) \| tojson \}\}$/.exec(template);
  if (m) return JSON.stringify(json[m[1]!] ?? null);
  m = /^\{\{ value_json\.(\w+) \| tojson if value_json\.(\w+) is not none else 'None' \}\}$/.exec(template);
  if (m && m[1] === m[2]) return json[m[1]!] == null ? 'None' : JSON.stringify(json[m[1]!]);
  throw new Error(`value_template not rendered by this test: ${template}`);
}

/** Home Assistant's MQTT switch (components/mqtt/switch.py): on, off, unknown, or no change. */
function switchState(config: any, json: Record<string, unknown>, was: string): string {
  const payload = render(config.value_template, json);
  if (payload === (config.state_on ?? config.payload_on)) return 'on';
  if (payload === (config.state_off ?? config.payload_off)) return 'off';
  if (payload === 'None') return 'unknown';
  return was;
}

t.test(
  'a relay board pulled off the bus: its switch reads unknown in Home Assistant, not its last state',
  async (t) => {
    const rt = await startApp({ hardware: 'sim', homeAssistant: 'true', emitInterval: '200' });
    t.teardown(() => rt.close());
    const get = async (route: string): Promise<any> => (await fetch(`${rt.base}/${route}`)).json();
    const { address } = await get('sim/devices/relays');
    const ok = async (route: string, body?: unknown) => {
      const r = await rt.post(route, body);
      if (r.status >= 300) throw new Error(`${route}: ${r.status} ${r.raw}`);
      return r.body;
    };
    await ok('blocks/create', { id: 'Relays', type: 'DS2408', data: { address } });
    const heater = await ok('blocks/create', {
      id: 'Heater',
      type: 'DigitalActuator',
      data: { 'hwDevice<>': 'Relays', channel: 1, storedState: 'STATE_ACTIVE' },
    });
    const retained = new Map<string, any>();
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`, { reconnectPeriod: 0 });
    t.teardown(() => client.end(true));
    client.on('message', (topic, payload) =>
      payload.length && !topic.endsWith('/availability')
        ? retained.set(topic, JSON.parse(payload.toString()))
        : retained.delete(topic),
    );
    await client.subscribeAsync(['homeassistant/switch/#', 'svc/ha/#']);
    let ha = 'unknown';
    const read = () => {
      const topic = [...retained.keys()].find((k) => k.endsWith(`/${heater.nid}_state/config`));
      const config = topic ? retained.get(topic) : undefined;
      const state = config ? retained.get(config.state_topic) : undefined;
      if (config && state) ha = switchState(config, state, ha);
      return ha;
    };
    const wait = async (what: string, cond: () => boolean | Promise<boolean>) => {
      const deadline = Date.now() + limit(8000);
      while (!(await cond())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await wait('the heater on in Home Assistant', () => read() === 'on');
    await ok('sim/devices/relays/unplug');
    await wait('the heater state null', async () => (await ok('blocks/read', { id: 'Heater' })).data.state === null);
    // What Home Assistant holds once the state with the null went out.
    await wait('the null state published', () => {
      read();
      return [...retained.values()].some((v) => v && typeof v === 'object' && 'state' in v && v.state === null);
    });
    t.equal(read(), 'unknown', 'the switch reads unknown while its board is gone');
    await ok('sim/devices/relays/plug');
    await wait('the heater back on in Home Assistant', () => read() === 'on');
  },
);
