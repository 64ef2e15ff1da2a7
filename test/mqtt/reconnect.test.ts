// The broker dies and comes back: the runtime reconnects, resumes emission, and neither
// publishes nor replays history for the time it was disconnected.
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { controllerTopic, KILLABLE_BROKERS, Recorder, SERVICE_ID, sleep, topic, until } from './fixtures.js';

const INTERVAL = 100;

for (const kind of KILLABLE_BROKERS) {
  t.test(kind.name, async (t) => {
    const broker = await kind.start();
    t.teardown(() => broker.stop());
    const rt = await startApp({ mqttUrl: broker.url, emitInterval: String(INTERVAL) });
    t.teardown(() => rt.close());
    const emitted = () => (rt.app.status().mqtt as { emitted: { cycles: number; history: number } }).emitted;
    await until(() => rt.app.mqtt.connected, 'the runtime to connect');

    const sub = await Recorder.connect(broker.url, { reconnectPeriod: 20 });
    t.teardown(() => sub.end());
    await sub.subscribe(topic('history'), topic('state'));
    await sub.waitFor((m) => m.topic === topic('history'), 'history before the outage', 2000);

    await broker.kill();
    await until(() => !rt.app.mqtt.connected, 'the runtime to notice the outage', 3000);
    const atOutage = emitted();
    await sleep(8 * INTERVAL);
    t.ok(emitted().cycles >= atOutage.cycles + 5, 'the emission loop keeps its cadence while disconnected');
    t.equal(emitted().history, atOutage.history, 'no history published while disconnected');
    t.equal((rt.app.status().mqtt as { connected: boolean }).connected, false, 'status reports the outage');

    // The moment the runtime is connected again, and its emission cycles by then: taken in the
    // connect event itself, not when a poll of `connected` next looks (late on a loaded machine).
    let reconnected: { at: number; cycles: number } | null = null;
    const off = rt.app.mqtt.onConnect(() => (reconnected ??= { at: performance.now(), cycles: emitted().cycles }));
    t.teardown(off);
    await broker.restart();
    await until(() => sub.client.connected, 'the test client to reconnect', 3000);
    await sleep(50); // its resubscription is through before the runtime's first retry (>= 500 ms after the drop)
    const from = sub.messages.length;
    await until(() => reconnected !== null && rt.app.mqtt.connected, 'the runtime to reconnect', 8000);
    const { at: reconnectedAt, cycles: cyclesAtReconnect } = reconnected!;

    const state = await sub.waitFor(
      (m) => m.topic === topic('state') && m.json().data.status.online === true,
      'state after reconnecting',
      2000,
      from,
    );
    t.ok(state, 'state resumes');
    await until(() => sub.on(topic('history'), from).length >= 6, 'history to resume', 3000);
    const history = sub.on(topic('history'), from);
    // Each emission cycle since the reconnection publishes at most one history message; a backlog
    // kept while disconnected would arrive on top. (Counted against the cycles, not the time
    // since: the first cycle after the reconnection may itself be late on a loaded machine.)
    const cycles = emitted().cycles - cyclesAtReconnect;
    t.ok(
      history.length <= cycles,
      `${history.length} history messages after reconnecting, in ${cycles} emission cycles: no backlog`,
    );
    const gaps = history.slice(1).map((m, i) => m.at - history[i]!.at);
    // A replayed backlog arrives as a burst: three or more messages within one interval. A single
    // late delivery followed by an on-time one is only a short gap, and does not count.
    const burst = history.slice(2).some((m, i) => m.at - history[i]!.at < INTERVAL / 2);
    t.notOk(
      burst,
      `history keeps its cadence after reconnecting, no burst (gaps ${gaps.map(Math.round).join(', ')} ms)`,
    );
    t.ok(history[0]!.at >= reconnectedAt - INTERVAL - 100, 'nothing older than the reconnection arrived');

    // The controller topics were subscribed again on the new connection.
    await sub.subscribe(topic('patch'));
    await sub.publish(
      controllerTopic('create'),
      JSON.stringify({ id: 'After Outage', serviceId: SERVICE_ID, type: 'TempSensorMock', data: {} }),
    );
    await sub.waitFor(
      (m) => m.topic === topic('patch') && m.json().data.changed[0]?.id === 'After Outage',
      'the patch of an MQTT create after the outage',
      2000,
    );
  });
}
