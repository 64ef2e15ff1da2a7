// History is never silently off (issue 44, item 2): the controller's own history goes to its
// own store every cycle, whether the broker takes the message or not. Before, a cycle without a
// broker (gone, or hung: the emission waits for it) published nothing and stored nothing, so an
// outage of an external Mosquitto left a gap in the controller's own graphs, counted nowhere.
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { SERVICE_ID, sleep, until } from '../mqtt/fixtures.js';

const INTERVAL = 200;
const FIELD = `${SERVICE_ID}/Beer Sensor/value[degC]`;

t.test("the broker away or hung: the controller's own history is still stored", async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const rt = await startApp({ mqttUrl: broker.url, emitInterval: String(INTERVAL) });
  t.teardown(() => rt.close());
  await until(() => rt.app.mqtt.connected, 'the app to connect');
  const created = await rt.post('blocks/create', {
    id: 'Beer Sensor',
    type: 'TempSensorMock',
    data: { setting: 19.5, connected: true },
  });
  t.equal(created.status, 201);
  const store = rt.app.history!.store;
  const pointsBetween = async (from: number, to: number) => {
    await store.flush();
    return (await store.raw([FIELD], from, to))[0]?.t.length ?? 0;
  };
  await sleep(INTERVAL * 5);
  t.ok((await pointsBetween(Date.now() - INTERVAL * 5, Date.now())) >= 3, 'stored while the broker is up');

  for (const [what, cut] of [
    ['hung (SIGSTOP)', () => broker.pause()],
    ['gone (killed)', () => broker.kill()],
  ] as const) {
    await cut();
    const from = Date.now();
    await sleep(INTERVAL * 10);
    const to = Date.now();
    const n = await pointsBetween(from, to);
    t.ok(n >= 6, `broker ${what}: ${n} points of the own field stored in ${to - from} ms (one per ${INTERVAL} ms)`);
    if (what.startsWith('hung')) broker.resume();
  }
  const status = rt.app.status().history as { dropped: { own: Record<string, number> } };
  t.same(status.dropped.own, {}, "none of the controller's own points dropped");
});
