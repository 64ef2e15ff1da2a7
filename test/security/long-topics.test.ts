// A topic may be 65,535 bytes long, and a client chooses it: junk history messages on 200
// invented topics of 60,000 characters wrote 200 warning lines of 120 KB each (the topic in the
// text and in the fields), 24 MB of log for 12 MB sent, and the limiter kept each topic as a
// source. A line a client can cause is bounded in size now (src/log/limit.ts): what it quotes
// is cut, saying how long it was.
import t from 'tap';
import { createLogger } from '../../src/log.js';
import { WarningLimiter } from '../../src/log/limit.js';
import { startApp } from '../helpers/app.js';
import { Recorder, until, untilSubscribed } from '../mqtt/fixtures.js';

const LONG = 60_000;

t.test('junk on very long topics leaves short lines', async (t) => {
  const lines: string[] = [];
  const log = createLogger('info', {}, { write: (s: string) => void lines.push(s) });
  const rt = await startApp({ homeAssistant: 'true' }, { log });
  t.teardown(() => rt.close());
  await untilSubscribed(rt.app);
  const pub = await Recorder.connect(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`);
  t.teardown(() => pub.end());
  const from = lines.length;
  const long = (i: number) => `${i}${'y'.repeat(LONG)}`;
  for (let i = 0; i < 100; i++) await pub.publish(`svc/history/${long(i)}`, '{');
  for (let i = 0; i < 20; i++) await pub.publish(`svc/ha/edge-one/${long(i)}/set/x`, '1');
  for (let i = 0; i < 20; i++)
    await pub.publish(`homeassistant/sensor/edgeblocks_edge-one/${i}_${long(i)}/config`, '1');
  const history = () => (rt.app.status().history as { dropped: { messages: Record<string, number> } }).dropped;
  await until(() => (history().messages['not JSON'] ?? 0) >= 100, 'the 100 junk history messages to be dropped');
  const logged = (what: RegExp) => lines.slice(from).some((l) => what.test(l));
  // The broker refuses configs under this controller's node from a client, and logs it.
  await until(() => logged(/home assistant command on/) && logged(/"module":"mqtt"/), 'the Home Assistant lines');

  const caused = lines.slice(from);
  const longest = Math.max(...caused.map((l) => l.length));
  t.ok(caused.length >= 3, `${caused.length} lines`);
  t.ok(longest < 5000, `the longest line is ${longest} characters`);
  t.match(caused.join('\n'), /characters\)/, 'a cut text says how long it was');
});

t.test('the limiter bounds what it keeps of a source and what it writes', async (t) => {
  const out: Array<[Record<string, unknown>, string]> = [];
  const limiter = new WarningLimiter({
    warn: ((fields: Record<string, unknown>, msg: string) => void out.push([fields, msg])) as never,
  });
  const topic = `a/${'z'.repeat(LONG)}`;
  limiter.warn(topic, { topic, n: 1, err: new Error('x') }, `bad on ${topic}: why`);
  const [fields, msg] = out[0]!;
  t.ok(msg.length < 2100, `message of ${msg.length} characters`);
  t.match(msg, /^bad on a\/zzz/);
  t.match(msg, /60\d{3} characters/);
  t.ok((fields.topic as string).length < 1100, 'a long string field is cut');
  t.equal(fields.n, 1, 'other fields as they are');
  t.type(fields.err, Error);
  // Two long sources that differ only past the cut share an allowance.
  t.equal(limiter.warn(`${topic}x`, {}, 'again'), false);
});
