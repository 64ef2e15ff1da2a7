// With the embedded broker, the controller's own state and history messages are not sent back to
// it over the broker (it subscribes to every controller's state and history for the fleet list
// and the history ingest, and would drop its own on arrival after the broker encoded and it parsed
// 140 KB every 5 s). Everyone else still gets them, and it still gets everyone else's.
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { Recorder, SERVICE_ID, topic, until } from './fixtures.js';

t.test('the embedded broker does not echo the controller its own state and history; others get both', async (t) => {
  const rt = await startApp({ emitInterval: '200', topicRoot: 'svc' });
  t.teardown(() => rt.close());
  const { app } = rt;
  await until(() => app.mqtt.connected, 'the runtime to connect');
  const arrived: string[] = [];
  const offState = app.mqtt.subscribeRaw('svc/state/+', (topicName) => void arrived.push(topicName));
  const offHistory = app.mqtt.subscribeRaw('svc/history/#', (topicName) => void arrived.push(topicName));
  t.teardown(() => (offState(), offHistory()));

  const other = await Recorder.connect(`mqtt://127.0.0.1:${app.mqtt.brokerPort}`);
  t.teardown(() => other.end());
  await other.subscribe(topic('state'));
  await other.subscribe(topic('history'));
  const emitted = () => (app.status().mqtt as { emitted: { state: number; history: number } }).emitted;
  const before = emitted();
  await other.waitFor((m) => m.topic === topic('history'), 'the controller history at another client', 3000);
  await other.waitFor((m) => m.topic === topic('state') && !m.retain, 'a live state message at another client', 3000);

  // Another controller's messages still reach it.
  await other.publish(
    'svc/state/edge-two',
    JSON.stringify({ key: 'edge-two', type: 'Spark.state', data: { status: { connected: true } } }),
  );
  await other.publish('svc/history/edge-two', JSON.stringify({ key: 'edge-two', data: { 'x/value': 1 } }));
  await until(
    () => arrived.includes('svc/state/edge-two') && arrived.includes('svc/history/edge-two'),
    'the other controller’s messages',
  );
  await until(() => emitted().state - before.state >= 4, 'four more state messages');
  const own = arrived.filter((x) => x === `svc/state/${SERVICE_ID}`).length;
  // Subscribing hands it the retained copy once (that is the broker's store, not an echo).
  t.ok(
    own <= 1,
    `${own} of its own ${emitted().state - before.state}+ state messages came back to it (at most the retained copy)`,
  );
  t.notOk(arrived.includes(`svc/history/${SERVICE_ID}`), 'none of its own history messages came back to it');
});
