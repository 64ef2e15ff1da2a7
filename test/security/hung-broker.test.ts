// History is never queued behind a hung broker (issue 15, item 4). A real Mosquitto is stopped
// with SIGSTOP for 14 s while the controller emits every second: the TCP connection stays open
// and the kernel would buffer 14 history messages for it, delivered in one burst on SIGCONT.
// The controller must stop emitting while the broker does not answer, give up on the connection
// within its 10 s keepalive, and after SIGCONT deliver at most the one message that was in
// flight when the broker stopped, then resume at its cadence.
// tags: slow (a Mosquitto stopped for 14 s)
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { Recorder, sleep, topic, until } from '../mqtt/fixtures.js';
import { limit } from '../helpers/limits.js';

const INTERVAL = 1000;
const STOP_MS = 14_000;

t.test('no stale history burst after SIGSTOP / SIGCONT', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const rt = await startApp({ mqttUrl: broker.url, emitInterval: String(INTERVAL) });
  t.teardown(() => rt.close());
  await until(() => rt.app.mqtt.connected, 'the runtime to connect');
  const sub = await Recorder.connect(broker.url, { keepalive: 60 });
  t.teardown(() => sub.end());
  await sub.subscribe(topic('history'));
  await sub.waitFor((m) => m.topic === topic('history'), 'history before the stop', 3000);
  await sleep(2 * INTERVAL);
  const beforeStop = sub.on(topic('history')).length;
  t.ok(beforeStop >= 2, `${beforeStop} history messages before the stop`);

  broker.pause();
  const stoppedAt = performance.now();
  const detected = await until(
    () => !rt.app.mqtt.connected,
    'the runtime to give up on the hung broker',
    STOP_MS - 500,
  ).then(
    () => true,
    () => false,
  );
  const detectMs = performance.now() - stoppedAt;
  t.ok(
    detected && detectMs < 10_000 + 2 * INTERVAL + limit(500),
    `the hung broker was given up on after ${(detectMs / 1000).toFixed(1)} s (keepalive 10 s, probed every emission)`,
  );
  await sleep(Math.max(0, STOP_MS - (performance.now() - stoppedAt)));

  const from = sub.messages.length;
  broker.resume();
  const resumedAt = performance.now();
  await until(() => rt.app.mqtt.connected, 'the runtime to reconnect', 15_000);
  await sleep(5.5 * INTERVAL);
  const after = sub.on(topic('history'), from);
  // At most the one message in flight at SIGSTOP plus the first one of the new connection.
  const burst = after.filter((m) => m.at - resumedAt < INTERVAL / 2);
  t.ok(burst.length <= 2, `${burst.length} history message(s) within ${INTERVAL / 2} ms of SIGCONT`);
  const gaps = after.slice(1).map((m, i) => m.at - after[i]!.at);
  const tripleInOneInterval = after.slice(2).some((m, i) => m.at - after[i]!.at < INTERVAL / 2);
  t.notOk(
    tripleInOneInterval,
    `no three history messages within half an interval (gaps ${gaps.map(Math.round).join(', ')} ms)`,
  );
  t.ok(
    after.length >= 4,
    `history resumed: ${after.length} messages in the ${Math.round(performance.now() - resumedAt)} ms after SIGCONT`,
  );
  const emitted = (rt.app.status().mqtt as { emitted: { skipped: number } }).emitted;
  t.ok(emitted.skipped >= 1, `${emitted.skipped} emission cycles skipped while the broker did not answer`);
});
