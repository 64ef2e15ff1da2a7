// The rule that keeps src/mqtt/packet-numbers.ts worth having: mqtt-packet's table of 65 536
// two-byte buffers (6 MB of heap that every GC walks) is never filled, because the flag that
// turns it off is set before the first packet, by the broker or the client, is written. If an
// import moved so a packet went out first, the table would be full here.
import { createRequire } from 'node:module';
import t from 'tap';
import { startApp } from '../helpers/app.js';

const require = createRequire(import.meta.url);
const numbers = require('mqtt-packet/numbers.js') as { cache: Record<number, Buffer> };
const writeToStream = require('mqtt-packet/writeToStream.js') as { cacheNumbers: boolean };

t.test("a running app with the embedded broker never fills mqtt-packet's number table", async (t) => {
  const rt = await startApp({ hardware: 'sim', emitInterval: '100' });
  t.teardown(() => rt.close());
  const emitted = async () =>
    ((await (await fetch(`${rt.base}/system/status`)).json()) as { mqtt: { emitted: { state: number } } }).mqtt.emitted
      .state;
  for (let i = 0; i < 100 && (await emitted()) < 3; i++) await new Promise((r) => setTimeout(r, 50));
  t.ok((await emitted()) >= 3, 'state messages went through the broker');
  t.equal(writeToStream.cacheNumbers, false, 'the cache flag is off');
  t.equal(Object.keys(numbers.cache).length, 0, 'no number buffer was cached');
});
