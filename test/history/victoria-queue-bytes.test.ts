// The VictoriaMetrics write queue held at most 5000 lines while the database was away, whatever
// their size: a publisher's message of 2000 fields under one 1000-character parent (17 KB of
// JSON) is 2 MB of line text, and a minute of them at the allowed rate held hundreds of megabytes
// on a Pi. The queue is now bounded in bytes too, thinned as when it is full of lines.
import t from 'tap';
import { silentLogger } from '../../src/log.js';
import { toLines } from '../../src/history/line-protocol.js';
import { VICTORIA_PENDING_BYTES, VictoriaStore } from '../../src/history/victoria-store.js';
import { freePort } from '../helpers/mosquitto.js';

t.test('while VictoriaMetrics is away, the queue of long lines is bounded in bytes', async (t) => {
  const port = await freePort();
  const store = new VictoriaStore({ url: `http://127.0.0.1:${port}`, log: silentLogger, timeoutMs: 2000 });
  t.teardown(() => store.close());
  const parent = 'p'.repeat(1000);
  const fields = Array.from({ length: 2000 }, (_, i) => [`${parent}/f${i}`, i] as const);
  const t0 = Date.now() - 3_600_000;
  const perMessage = toLines('flood', fields, t0).lines.reduce((n, l) => n + l.text.length, 0);
  let most = 0;
  for (let i = 0; i < 600; i++) {
    store.write('flood', fields, t0 + i * 50);
    most = Math.max(most, store.status().pendingBytes as number);
  }
  await store.flush();
  t.ok(most <= VICTORIA_PENDING_BYTES, `at most ${Math.round(most / 1e6)} MB of lines queued`);
  t.ok(
    (store.status().pendingLines as number) * 50_000 <= VICTORIA_PENDING_BYTES,
    `${store.status().pendingLines} lines of some 64 KB queued (${Math.round(perMessage / 1e6)} MB a message)`,
  );
  t.ok((store.status().thinned as number) > 0, 'thinned');
  t.equal(store.status().ok, false);
});

// The bound counted characters of the line text: names beyond ASCII (a CJK character is three
// bytes in UTF-8, as sent) held three times the 16 MiB, and pendingBytes said a third of it.
t.test('the queue bound and pendingBytes count bytes, also of names beyond ASCII', async (t) => {
  const port = await freePort();
  const store = new VictoriaStore({ url: `http://127.0.0.1:${port}`, log: silentLogger, timeoutMs: 2000 });
  t.teardown(() => store.close());
  const parent = '発酵槽'.repeat(333);
  const fields = Array.from({ length: 2000 }, (_, i) => [`${parent}/f${i}`, i] as const);
  const t0 = Date.now() - 3_600_000;
  const sizes = toLines('flood', fields, t0).lines.map((l) => Buffer.byteLength(l.text));
  // Thinning keeps every other line, so the queue's lines are near the average: half of it is a safe floor.
  const floor = sizes.reduce((a, b) => a + b, 0) / sizes.length / 2;
  let most = 0;
  let reportedBelow = 0;
  for (let i = 0; i < 600; i++) {
    store.write('flood', fields, t0 + i * 50);
    const lines = store.status().pendingLines as number;
    most = Math.max(most, lines * floor);
    if ((store.status().pendingBytes as number) < lines * floor) reportedBelow++;
  }
  await store.flush();
  t.ok(most <= VICTORIA_PENDING_BYTES, `${Math.round(most / 2 ** 20)} MiB or more queued at most (bound: 16 MiB)`);
  t.equal(reportedBelow, 0, 'pendingBytes never says less than the bytes queued');
  t.ok((store.status().thinned as number) > 0, 'thinned');
});
