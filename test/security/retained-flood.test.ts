// Retained messages on the embedded broker are bounded: a client publishing retained messages on
// ever new topics (with auth off, anyone on the LAN) could make the broker keep them all until the
// Pi runs out of memory. What clients keep retained is held to RETAINED_CLIENT_MESSAGES and
// RETAINED_CLIENT_BYTES; past them a retained publish is still delivered to the subscribers of the
// moment but not kept, with one warning a minute. Clearing a topic (an empty retained message)
// always works, a message replacing one of no fewer bytes is kept, and the service's own retained
// messages (state, Home Assistant configs and states, availability) are never refused. Home
// Assistant's command topics are never kept retained: a command is applied when sent.
import { createServer, type AddressInfo } from 'node:net';
import { Aedes } from 'aedes';
import t from 'tap';
import { createLogger } from '../../src/log.js';
import { MAX_PACKET_BYTES, RETAINED_CLIENT_BYTES, RETAINED_CLIENT_MESSAGES } from '../../src/shared/limits.js';
import { limitRetained } from '../../src/mqtt/retained.js';
import { startApp } from '../helpers/app.js';
import { Recorder, SERVICE_ID, sleep, topic, until, untilSubscribed } from '../mqtt/fixtures.js';

const capture = () => {
  const lines: string[] = [];
  return { lines, log: createLogger('warn', {}, { write: (s: string) => lines.push(s) }) };
};
const AVAILABILITY = `svc/ha/${SERVICE_ID}/availability`;

/** What a fresh subscription to `filter` gets retained, once the broker has sent it all. */
async function retainedOn(url: string, filter: string): Promise<Map<string, Buffer>> {
  const sub = await Recorder.connect(url);
  try {
    await sub.subscribe(filter);
    let seen = -1;
    // Retained messages follow the SUBACK as the client reads them: wait until they stop coming.
    while (seen !== sub.messages.length) {
      seen = sub.messages.length;
      await sleep(300);
    }
    return new Map(sub.messages.filter((m) => m.retain).map((m) => [m.topic, m.payload]));
  } finally {
    await sub.end();
  }
}

t.test('embedded broker: clients keep a bounded number of retained messages', async (t) => {
  const { lines, log } = capture();
  const rt = await startApp({ mqttUrl: 'embedded', mqttPort: '0', homeAssistant: 'true' }, { log });
  t.teardown(() => rt.close());
  await untilSubscribed(rt.app, 8000);
  const url = `mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`;
  const retained = () => (rt.app.mqtt.status() as any).retained as { messages: number; bytes: number; refused: number };
  t.equal(
    (
      await rt.post('blocks/create', {
        id: 'Beer',
        type: 'SetpointSensorPair',
        data: { enabled: true, storedSetting: 20 },
      })
    ).status,
    201,
  );
  const beer = rt.app.runtime.find('Beer')!.nid;
  const setting = () => (rt.app.runtime.read({ id: 'Beer' }).json().data as any).storedSetting.value;
  const flooder = await Recorder.connect(url, { clientId: 'flooder' });
  t.teardown(() => flooder.end());
  /** Wait until the broker has handled everything `flooder` sent before: a live marker comes back. */
  const flushed = async () => {
    const marker = `marker/${Math.random()}`;
    await flooder.subscribe(marker);
    await flooder.publish(marker, 'x');
    await flooder.waitFor((m) => m.topic === marker, 'the marker', 20000);
  };

  // A Home Assistant command sent retained is applied, and not kept.
  await flooder.publish(`svc/ha/${SERVICE_ID}/${beer}/set/setting`, '30', true);
  await until(() => setting() === 30, 'the retained command applied as sent');
  await flushed();
  t.equal((await retainedOn(url, `svc/ha/${SERVICE_ID}/+/set/+`)).size, 0, 'the command was not kept retained');
  t.ok(
    lines.some((l) => /not kept retained/.test(l) && /flooder/.test(l)),
    'a warning says so',
  );

  // Bytes: messages near the packet limit, until they are past the bound.
  const big = Buffer.alloc(MAX_PACKET_BYTES - 1024, 'b');
  const bigOnes = Math.ceil(RETAINED_CLIENT_BYTES / big.length) + 1;
  const live = await Recorder.connect(url);
  t.teardown(() => live.end());
  await live.subscribe('big/#');
  // One at a time: `live` would be closed as a slow reader with several at the packet limit waiting for it.
  for (let i = 0; i < bigOnes; i++) {
    await flooder.publish(`big/${i}`, big, true);
    await live.waitFor((m) => m.topic === `big/${i}`, `big/${i} delivered live`, 20000);
  }
  await flushed();
  const keptBig = Math.floor(RETAINED_CLIENT_BYTES / (big.length + 5));
  t.equal((await retainedOn(url, 'big/#')).size, keptBig, 'a new subscriber gets as many large messages as fit');
  t.ok(retained().bytes <= RETAINED_CLIENT_BYTES, `at most ${RETAINED_CLIENT_BYTES} bytes kept (${retained().bytes})`);
  t.equal(retained().messages, keptBig, 'as many large messages as fit were kept');
  t.equal(live.messages.length, bigOnes, 'every large message was delivered live all the same');

  // Clearing works past the bound, and frees the room.
  for (let i = 0; i < keptBig; i++) await flooder.publish(`big/${i}`, '', true);
  await flushed();
  t.equal((await retainedOn(url, 'big/#')).size, 0, 'the large ones cleared');
  t.same([retained().messages, retained().bytes], [0, 0], 'their room freed');

  // Count: small messages on ever new topics.
  const small = RETAINED_CLIENT_MESSAGES + 100;
  for (let i = 0; i < small; i++) void flooder.publish(`flood/${i}`, 'x', true);
  await flushed();
  const flood = await retainedOn(url, 'flood/#');
  t.equal(flood.size, RETAINED_CLIENT_MESSAGES, 'a new subscriber gets what was kept, no more');
  t.equal(retained().messages, RETAINED_CLIENT_MESSAGES, 'the broker keeps at most the bound');
  t.ok(retained().refused >= 100, 'the refusals are counted');

  // One warning (a minute), naming the client and the topic.
  const warned = lines.filter((l) => /delivered but not kept/.test(l));
  t.equal(warned.length, 1, `one warning for all the refusals: ${warned.join('\n')}`);
  t.match(warned[0], /flooder/, 'it names the client');
  t.match(warned[0], new RegExp(`big/${keptBig}\\b`), 'and the topic of the first refused');

  // The service's own retained messages are all there for a new subscriber to `#`, and new ones still go in.
  t.equal((await rt.post('blocks/create', { id: 'Wort', type: 'TempSensorMock', data: {} })).status, 201);
  const wort = rt.app.runtime.find('Wort')!.nid;
  await sleep(500);
  const all = await retainedOn(url, '#');
  t.ok(all.has(topic('state')), "the service's state");
  t.equal(all.get(AVAILABILITY)?.toString(), 'online', 'its availability');
  t.ok(all.has(`svc/ha/${SERVICE_ID}/${wort}`), "the new block's Home Assistant state");
  const configs = [...all.keys()].filter((k) => k.startsWith('homeassistant/'));
  t.ok(
    configs.some((k) => k.includes(`_${beer}_`) || k.includes(`/${beer}_`)),
    "Beer's config",
  );
  t.ok(
    configs.some((k) => k.includes(`_${wort}_`) || k.includes(`/${wort}_`)),
    "the new block's config",
  );

  // A replacement of no more bytes is kept; clearing always works and makes room.
  await flooder.publish('flood/1', 'y', true);
  await flooder.publish('flood/0', '', true);
  await flooder.publish('flood/new', 'z', true);
  await flushed();
  const after = await retainedOn(url, 'flood/#');
  t.equal(after.get('flood/1')?.toString(), 'y', 'a replacement of the same size is kept');
  t.notOk(after.has('flood/0'), 'the cleared topic is gone');
  t.equal(after.get('flood/new')?.toString(), 'z', 'the room it made is taken');
  t.equal(retained().messages, RETAINED_CLIENT_MESSAGES, 'still at the bound');
});

// aedes' parser hands over each payload as a view of the socket chunk it came in: kept as such, a
// one-byte retained message would hold up to 64 KB, beyond what the bound counts.
t.test('a retained message keeps its own bytes, not the chunk it was read in', async (t) => {
  const aedes = await Aedes.createBroker();
  const bound = limitRetained(aedes, { isOwn: () => false, isCommand: () => false, onRefused: () => undefined });
  const server = createServer((socket) => aedes.handle(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => aedes.close(() => server.close(() => resolve()))));
  const client = await Recorder.connect(`mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`);
  t.teardown(() => client.end());
  for (let i = 0; i < 2000; i++) void client.publish(`pin/${i}`, 'x', true);
  await until(() => bound.status().messages === 2000, 'the messages kept');
  const persistence = (aedes as unknown as { persistence: { createRetainedStream(p: string): AsyncIterable<any> } })
    .persistence;
  let held = 0;
  for await (const packet of persistence.createRetainedStream('pin/#')) held += packet.payload.buffer.byteLength;
  t.ok(held <= 2000 * 256, `2000 one-byte messages hold ${held} bytes of buffers`);
});
