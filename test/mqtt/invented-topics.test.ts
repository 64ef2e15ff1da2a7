// A client that sends junk on wildcard subscriptions, each message on a topic of its own
// (Home Assistant commands for nids no block has, `svc/ha/<id>/<n>/set/<key>`), made one
// warning per topic: 2,000 junk commands wrote 1,000 lines (the limiter's source bound), and
// the same for retained commands handed over at each connect. They are limited per
// subscription now: a line a minute, naming the last topic, with how many were held back.
import t from 'tap';
import { createLogger } from '../../src/log.js';
import { startApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { Recorder, SERVICE_ID, until, untilSubscribed } from './fixtures.js';

const junkCommand = (i: number) => `svc/ha/${SERVICE_ID}/${1000 + i}/set/setting`;

t.test('junk on invented topics of one subscription leaves a line or two, not one per topic', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  // Retained commands the broker hands over when the controller subscribes.
  const before = await Recorder.connect(broker.url);
  for (let i = 0; i < 200; i++) await before.publish(junkCommand(i), '21', true);
  await before.subscribe(`svc/ha/${SERVICE_ID}/+/set/+`);
  await until(() => before.messages.length === 200, 'the broker to hold the 200 retained commands');
  await before.end();

  const lines: Array<{ level: number; msg: string }> = [];
  const log = createLogger('info', {}, { write: (s: string) => lines.push(JSON.parse(s)) });
  const rt = await startApp({ homeAssistant: 'true', mqttUrl: broker.url }, { log });
  t.teardown(() => rt.close());
  await untilSubscribed(rt.app);
  const pub = await Recorder.connect(broker.url);
  t.teardown(() => pub.end());
  for (let i = 0; i < 2000; i++) void pub.publish(junkCommand(i), '{not json');
  const dropped = () => (rt.app.status().mqtt as { dropped: { other: number } }).dropped.other;
  await until(() => dropped() >= 2000, 'the 2000 junk commands to be dropped', 20_000);

  const replays = lines.filter((l) => /retained on the broker/.test(l.msg));
  const junk = lines.filter((l) => /mqtt message on .* dropped: not JSON/.test(l.msg));
  t.ok(replays.length >= 1 && replays.length <= 2, `${replays.length} lines for 200 retained commands`);
  t.ok(junk.length >= 1 && junk.length <= 2, `${junk.length} lines for 2000 junk commands`);
  t.equal((await rt.post('system/ping')).status, 200, 'and the service answers');
});
