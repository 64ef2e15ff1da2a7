// The incoming packet limit (issue 45.1): packets are walked by their fixed headers as bytes
// arrive, whatever the chunking; a PUBLISH over the limit is skipped (its topic reported) and
// never reaches the parser, other packets pass byte for byte, and any other packet over the limit
// ends the connection. The limit between the service and real brokers: test/fleet/peer-flood.test.ts.
import { Duplex, PassThrough } from 'node:stream';
import mqttPacket from 'mqtt-packet';
import t from 'tap';
import { InboundLimit, PacketWalker } from '../../src/mqtt/packet-limit.js';

const gen = (p: object) => mqttPacket.generate(p as mqttPacket.Packet);
const publish = (topic: string, bytes: number) =>
  gen({ cmd: 'publish', topic, payload: Buffer.alloc(bytes, 0x61), qos: 0, dup: false, retain: true });
const LIMIT = 1000;
const packets = [
  { keep: true, bytes: gen({ cmd: 'connack', returnCode: 0, sessionPresent: false }) },
  { keep: true, bytes: publish('svc/fleet/ferm-3', 40) },
  { keep: false, bytes: publish('svc/fleet/ferm-2', 5000), topic: 'svc/fleet/ferm-2' },
  { keep: true, bytes: gen({ cmd: 'pingresp' }) },
  { keep: false, bytes: publish('x'.repeat(300), 200000), topic: 'x'.repeat(256) },
  { keep: true, bytes: publish('svc/history/ferm-3', LIMIT - 30) }, // just under: total 1000 or less
  { keep: true, bytes: publish('a', 200) }, // remaining length takes two bytes
];
const all = Buffer.concat(packets.map((p) => p.bytes));
const kept = Buffer.concat(packets.filter((p) => p.keep).map((p) => p.bytes));
const skippedTopics = packets.filter((p) => !p.keep).map((p) => p.topic);

function walk(chunks: Buffer[]): { out: Buffer; topics: string[]; sizes: number[] } {
  const topics: string[] = [];
  const sizes: number[] = [];
  const walker = new PacketWalker(
    (h) => (h.total <= LIMIT ? 'keep' : h.type === 3 ? 'skip' : 'stop'),
    (h, topic) => {
      topics.push(topic);
      sizes.push(h.total);
    },
  );
  return { out: Buffer.concat(chunks.flatMap((c) => walker.feed(c))), topics, sizes };
}

t.test('over-limit PUBLISHes are skipped, everything else passes byte for byte, for any chunking', async (t) => {
  t.ok(packets[5]!.bytes.length <= LIMIT && packets[5]!.bytes.length > LIMIT - 10, 'a packet at the limit');
  const whole = walk([all]);
  t.same(whole.out, kept, 'one chunk');
  t.same(whole.topics, skippedTopics, 'the skipped topics are named (cut to 256 bytes)');
  t.same(
    whole.sizes,
    packets.filter((p) => !p.keep).map((p) => p.bytes.length),
    'with the size of the whole packet',
  );
  // Every cut point of the short packets' region, and byte by byte over all of it.
  let bad = 0;
  for (let cut = 1; cut < 200; cut++) {
    const r = walk([all.subarray(0, cut), all.subarray(cut)]);
    if (!r.out.equals(kept) || r.topics.join() !== skippedTopics.join()) bad++;
  }
  t.equal(bad, 0, 'two chunks, cut anywhere in the first 200 bytes');
  const bytes = walk([...all].map((b) => Buffer.from([b])));
  t.same(bytes.out, kept, 'one byte at a time');
  t.same(bytes.topics, skippedTopics);
  const random = [];
  for (let at = 0; at < all.length; ) {
    const n = 1 + Math.floor(Math.random() * 70000);
    random.push(all.subarray(at, at + n));
    at += n;
  }
  t.same(walk(random).out, kept, 'random chunks');
});

t.test('a chunk of kept packets is handed on as it came, not copied', async (t) => {
  const chunk = Buffer.concat([packets[0]!.bytes, packets[1]!.bytes, packets[3]!.bytes]);
  const walker = new PacketWalker(() => 'keep');
  const out = walker.feed(chunk);
  t.equal(out.length, 1);
  t.equal(out[0]!.buffer, chunk.buffer, 'a view of the same memory');
});

t.test('InboundLimit: the reader sees only kept packets; another packet over the limit ends the stream', async (t) => {
  const inner = new PassThrough();
  const skipped: Array<[string, number]> = [];
  const limited = new InboundLimit(inner, LIMIT, (topic, bytes) => skipped.push([topic, bytes]));
  const got: Buffer[] = [];
  limited.on('data', (c: Buffer) => got.push(c));
  for (let at = 0; at < all.length; at += 777) inner.write(all.subarray(at, at + 777));
  await new Promise((r) => setImmediate(r));
  t.same(Buffer.concat(got), kept);
  t.same(
    skipped.map(([topic]) => topic),
    skippedTopics,
  );
  // Writes reach the connection.
  const written: Buffer[] = [];
  const spy = new PassThrough();
  const limited2 = new InboundLimit(spy, LIMIT, () => undefined);
  spy.on('data', (c: Buffer) => written.push(c));
  limited2.write(Buffer.from('hello'));
  await new Promise((r) => setImmediate(r));
  t.ok(Buffer.concat(written).toString().includes('hello'), 'writes go through');

  const suback = gen({ cmd: 'suback', messageId: 1, granted: new Array(LIMIT + 10).fill(0) });
  const inner3 = new PassThrough();
  const limited3 = new InboundLimit(inner3, LIMIT, () => undefined);
  const error = new Promise<Error>((resolve) => limited3.once('error', resolve));
  limited3.on('data', () => undefined);
  inner3.write(suback);
  const err = await error;
  t.match(err.message, /sent a \d+-byte packet \(type 9\); the limit is 1000/);
  t.ok(inner3.destroyed, 'the connection is closed');
});

t.test('a packet written in parts (corked, as mqtt.js writes) reaches the connection as one write', async (t) => {
  // Written in parts, a socket sent all but the first after the peer's delayed ACK (Nagle): 40 ms a publish.
  const batches: number[] = [];
  const inner = new Duplex({
    read() {},
    write(_chunk, _enc, done) {
      batches.push(1);
      done();
    },
    writev(chunks, done) {
      batches.push(chunks.length);
      done();
    },
  });
  const limited = new InboundLimit(inner, LIMIT, () => undefined);
  limited.cork();
  for (const part of ['header', 'topic', 'payload']) limited.write(Buffer.from(part));
  process.nextTick(() => limited.uncork());
  await new Promise((r) => setImmediate(r));
  t.same(batches, [3], 'one write of three parts');
});
