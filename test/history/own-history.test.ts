// The controller's own history (issue 28, item 2): the emission hands its message straight to the
// ingest instead of parsing it back from the bus. On both brokers: the message still goes out on
// MQTT for other subscribers, its points are stored and queryable, each one is ingested once
// (not also from the bus), and a message someone else publishes on the controller's topic is
// not taken for the controller's own (that topic is exempt from the flood limits).
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { Recorder, SERVICE_ID, sleep, topic, until, VARIANTS } from '../mqtt/fixtures.js';

const INTERVAL = 200;
const FIELD = `${SERVICE_ID}/Beer Sensor/value[degC]`;

for (const variant of VARIANTS) {
  t.test(variant.name, async (t) => {
    const bus = await variant.setup();
    t.teardown(() => bus.close());
    const rt = await startApp({ ...bus.overrides, emitInterval: String(INTERVAL) });
    t.teardown(() => rt.close());
    const { app } = rt;
    const root = rt.base.replace(new RegExp(`/${SERVICE_ID}$`), '');
    const post = async (route: string, body: unknown) =>
      (
        await fetch(`${root}/history/timeseries/${route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json() as Promise<any>;
    const ingested = () => (app.status().history as { ingest: { messages: number } }).ingest.messages;
    const emitted = () => (app.status().mqtt as { emitted: { history: number } }).emitted.history;
    const cycles = () => (app.status().mqtt as { emitted: { cycles: number } }).emitted.cycles;
    await until(() => app.mqtt.connected, 'the app to connect');
    const sub = await Recorder.connect(bus.brokerUrl(app));
    t.teardown(() => sub.end());
    await sub.subscribe(topic('history'));

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

    const published = await sub.waitFor(
      (m) => m.json().data?.['Beer Sensor']?.['value[degC]'] === 21.5,
      'the own history message on MQTT',
      INTERVAL * 10,
    );
    t.equal(published.json().key, SERVICE_ID, 'an external subscriber still receives the own history message');

    let metrics: any[] = [];
    for (let i = 0; i < 50 && !metrics.length; i++) {
      metrics = await post('metrics', { fields: [FIELD] });
      if (!metrics.length) await sleep(100);
    }
    t.equal(metrics[0]?.value, 21.5, 'the own points are in the last-value cache');
    const ranges = await post('ranges', { fields: [FIELD], duration: '10m' });
    t.equal(Number(ranges[0]?.values.at(-1)[1]), 21.5, 'and queryable through /history/timeseries/ranges');

    // Each cycle's message is ingested once (published or not: a cycle before the connection
    // stores it too), not also from the bus: a few cycles, then the counts side by side (the
    // hand-over follows the publish in the same cycle, so at most one may be in flight).
    const from = emitted();
    await until(() => emitted() >= from + 4, 'four more history emissions', INTERVAL * 30);
    const [ran, taken] = [cycles(), ingested()];
    t.ok(taken <= ran && taken >= ran - 1, `${taken} history messages ingested in ${ran} cycles`);

    // Someone else on the controller's topic, and on a topic of its own.
    await sub.publish(topic('history'), JSON.stringify({ key: SERVICE_ID, data: { Impostor: { v: 1 } } }));
    await sub.publish(
      topic('history', 'other-one'),
      JSON.stringify({ key: 'other-one', data: { Neighbour: { v: 2 } } }),
    );
    let neighbour: any[] = [];
    for (let i = 0; i < 50 && !neighbour.length; i++) {
      await sleep(100);
      neighbour = await post('metrics', { fields: ['other-one/Neighbour/v'] });
    }
    t.equal(neighbour[0]?.value, 2, 'other publishers are still ingested from the bus');
    t.same(
      await post('metrics', { fields: [`${SERVICE_ID}/Impostor/v`] }),
      [],
      "a message on the controller's topic from another client is not stored as its own",
    );
    t.notOk((await post('fields', {})).includes(`${SERVICE_ID}/Impostor/v`), 'nor listed as a field');
  });
}
