// Log flooding (issue 23, item 9): junk on the controller's MQTT block API, sent through a real
// Mosquitto, is counted in system/status and logged at most once a minute per topic (the same
// limiter as history drops, src/log/limit.ts), instead of one line per message; valid messages
// still work during and after it.
import { pino } from 'pino';
import { Writable } from 'node:stream';
import t from 'tap';
import { WarningLimiter } from '../../src/log/limit.js';
import { startApp } from '../helpers/app.js';
import { limit } from '../helpers/limits.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { controllerTopic, Recorder, SERVICE_ID, topic, until } from '../mqtt/fixtures.js';

const JUNK = 2000;
const TOPICS = ['create', 'write', 'patch', 'delete'].flatMap((a) => [controllerTopic(a), `svc/spark/blocks/${a}`]);

t.test(`${JUNK} junk block API messages through Mosquitto give a line per topic, not per message`, async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const lines: Array<{ msg: string; reason?: string }> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const rt = await startApp({ mqttUrl: broker.url }, { log: pino({ level: 'warn' }, sink) });
  t.teardown(() => rt.close());
  await until(() => rt.app.mqtt.connected, 'the runtime to connect');
  const dropped = () =>
    (rt.app.status().mqtt as { dropped?: { blockApi: number; warningsSuppressed: number } }).dropped;

  const client = await Recorder.connect(broker.url);
  t.teardown(() => client.end());
  await client.subscribe(topic('patch'));
  const junk = (i: number) =>
    [
      `{"serviceId":"${SERVICE_ID}",`,
      'null',
      JSON.stringify({ serviceId: SERVICE_ID, id: `Junk ${i}`, type: 'NoSuchType', data: {} }),
    ][i % 3]!;
  for (let i = 0; i < JUNK; i++) {
    void client.publish(TOPICS[i % TOPICS.length]!, junk(i));
    if (i === JUNK / 2)
      void client.publish(
        controllerTopic('create'),
        JSON.stringify({ serviceId: SERVICE_ID, id: 'Amid junk', type: 'TempSensorMock', data: {} }),
      );
  }
  // A valid message after the junk: once it is applied, every junk message before it was handled.
  await client.publish(
    controllerTopic('create'),
    JSON.stringify({ serviceId: SERVICE_ID, id: 'After junk', type: 'TempSensorMock', data: {} }),
  );
  await client.waitFor(
    (m) => m.json().data.changed?.[0]?.id === 'After junk',
    'the valid create sent after the junk',
    limit(20_000),
  );
  t.ok(
    client.on(topic('patch')).some((m) => m.json().data.changed?.[0]?.id === 'Amid junk'),
    'the valid create sent amid the junk was applied',
  );

  const logged = lines.filter((l) => /^mqtt blocks\/\w+ dropped/.test(l.msg));
  t.equal(dropped()?.blockApi, JUNK, 'every junk message is counted in system/status');
  t.ok(logged.length <= TOPICS.length, `${logged.length} lines logged for ${JUNK} messages on ${TOPICS.length} topics`);
  t.ok(logged.length >= 1, 'the first one is logged');
  t.ok(
    logged.every((l) => typeof l.reason === 'string' && l.reason.length > 0),
    'with its reason',
  );
  t.equal(dropped()?.warningsSuppressed, JUNK - logged.length, 'the lines held back are counted');
  const status = (await rt.post('system/status')).body;
  t.equal(status.mqtt.dropped?.blockApi, JUNK, 'system/status shows the count');
});

t.test(
  'the limiter: one line per source and interval, then how many were held back; sources are bounded',
  async (t) => {
    const out: string[] = [];
    let now = 0;
    const limiter = new WarningLimiter(
      { warn: ((_fields: object, msg: string) => void out.push(msg)) as never },
      { intervalMs: 60_000, maxSources: 2, now: () => now },
    );
    for (let i = 0; i < 100; i++) limiter.warn('a', {}, 'bad on a');
    limiter.warn('b', {}, 'bad on b');
    t.same(out, ['bad on a', 'bad on b']);
    now = 59_999;
    t.equal(limiter.warn('a', {}, 'bad on a'), false, 'still within the minute');
    now = 60_000;
    t.equal(limiter.warn('a', {}, 'bad on a'), true);
    t.equal(out.at(-1), 'bad on a (100 more like it from a since the last warning)');
    for (let i = 0; i < 50; i++) limiter.warn(`invented ${i}`, {}, `bad on invented ${i}`);
    t.same(out.slice(3), ['bad on invented 0'], 'past maxSources, new sources share one allowance');
    t.equal(limiter.suppressed, 100 + 49, 'held-back lines are counted');
  },
);

t.test(
  'a wall clock set back an hour does not silence a source (the interval is on the monotonic clock)',
  async (t) => {
    const out: string[] = [];
    const limiter = new WarningLimiter(
      { warn: ((_fields: object, msg: string) => void out.push(msg)) as never },
      {
        intervalMs: 20,
      },
    );
    const realNow = Date.now;
    t.teardown(() => {
      Date.now = realNow;
    });
    limiter.warn('a', {}, 'bad on a');
    const back = realNow() - 3_600_000;
    Date.now = () => back;
    await new Promise((r) => setTimeout(r, 40));
    t.equal(limiter.warn('a', {}, 'bad on a'), true, 'logged again once the interval has passed');
    t.same(out, ['bad on a', 'bad on a']);
  },
);
