// The in-memory pair between the service's client and the embedded broker hands over one written
// chunk at a time, so a reader that takes all it has at once (aedes) gets the payload the client
// wrote as it is, not joined with everything else written in the turn into a new buffer.
import { Aedes } from 'aedes';
import { MqttClient } from 'mqtt';
import t from 'tap';
import { memoryPair } from '../../src/mqtt/memory-pair.js';

t.test('a reader that reads once per readable gets each chunk as written, in order', async (t) => {
  const [a, b] = memoryPair();
  const chunks = [Buffer.from('head'), Buffer.alloc(150_000, 7), Buffer.from('tail')];
  const got: Buffer[] = [];
  b.on('readable', () => {
    const buf = b.read() as Buffer | null;
    if (buf) got.push(buf);
  });
  const ended = new Promise((resolve) => b.once('end', resolve));
  for (const c of chunks) a.write(c);
  a.end();
  await ended;
  t.equal(got.length, chunks.length, 'one read per chunk');
  for (const [i, c] of chunks.entries()) t.equal(got[i], c, `chunk ${i} is the written buffer itself`);
});

t.test('both directions, many writes, nothing lost or reordered', async (t) => {
  const [a, b] = memoryPair();
  const collect = (s: typeof a) => {
    const parts: Buffer[] = [];
    s.on('data', (d: Buffer) => parts.push(d));
    return new Promise<string>((resolve) => s.once('end', () => resolve(Buffer.concat(parts).toString())));
  };
  const atB = collect(b);
  const atA = collect(a);
  const expected = Array.from({ length: 2000 }, (_, i) => `${i},`).join('');
  for (let i = 0; i < 2000; i++) {
    a.write(`${i},`);
    b.write(`${i},`);
  }
  a.end();
  b.end();
  t.equal(await atB, expected);
  t.equal(await atA, expected);
});

t.test('aedes gets a publish over the pair with the payload the client wrote, not a joined copy', async (t) => {
  const broker = await Aedes.createBroker();
  t.teardown(() => new Promise<void>((resolve) => broker.close(() => resolve())));
  const client = new MqttClient(() => {
    const [near, far] = memoryPair();
    broker.handle(far as never);
    return near as never;
  }, { clientId: 'pair-test', protocolVersion: 4, reconnectPeriod: 0 });
  t.teardown(() => client.end(true));
  await new Promise((resolve) => client.once('connect', resolve));
  const payload = Buffer.from(JSON.stringify({ data: 'x'.repeat(150_000) }));
  const arrived = new Promise<Buffer>((resolve) =>
    broker.on('publish', (packet, from) => {
      if (from && packet.topic === 'svc/state/x') resolve(packet.payload as Buffer);
    }),
  );
  client.publish('svc/history/x', Buffer.alloc(20_000, 1));
  client.publish('svc/state/x', payload, { retain: true });
  const got = await arrived;
  t.same(got, payload, 'the bytes');
  t.equal(got.buffer.byteLength, payload.length, 'its memory holds the payload only: not sliced out of a buffer joining the turn');
});
