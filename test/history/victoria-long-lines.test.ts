// VictoriaMetrics reads a line of at most 256 KiB (-influx.maxLineSize) and refuses the whole
// write when one is longer. Every field of a message went on one line per key: a publisher's
// small message with many fields under one long name (some 5 KB of JSON, flattened to 300 fields
// each repeating the 900-character parent) made a line of 270 KB, and with it every batch it was in
// was refused, the controller's own points too (history.ok false, "too long line" in status).
// Lines are now cut to LINE_BYTES.
// tags: slow (a real VictoriaMetrics; its ingestion is waited for up to 30 s, no real-time limit)
import t from 'tap';
import { LINE_BYTES, toLines } from '../../src/history/line-protocol.js';
import { startApp } from '../helpers/app.js';
import { startVictoria } from '../helpers/victoria.js';
import { Recorder, until } from '../mqtt/fixtures.js';
import { limit } from '../helpers/limits.js';

const PARENT = 'p'.repeat(900);
const FIELDS = 300;

t.test('lines are cut to LINE_BYTES, every point on one of them', async (t) => {
  const fields = Array.from({ length: 2000 }, (_, i) => [`${'a b,c='.repeat(140)}/f ${i}`, i] as const);
  const { lines, unwritable } = toLines('k', fields, 1_700_000_000_000);
  t.same(unwritable, []);
  t.ok(lines.length > 1);
  t.same(
    lines.filter((l) => Buffer.byteLength(l.text) > LINE_BYTES).map((l) => Buffer.byteLength(l.text)),
    [],
    `no line over ${LINE_BYTES} bytes`,
  );
  t.equal(
    lines.reduce((n, l) => n + l.points, 0),
    fields.length,
    'every point is on a line',
  );
  t.same(
    lines.filter((l) => l.bytes !== Buffer.byteLength(l.text) + 1),
    [],
    'each line counts its bytes in a write (its UTF-8 text and newline)',
  );
});

t.test("a publisher's message of many long-named fields: the controller's history goes on", async (t) => {
  const vm = await startVictoria();
  t.teardown(() => vm.stop());
  const rt = await startApp({ historyUrl: vm.url, emitInterval: '200' });
  t.teardown(() => rt.close());
  await until(() => rt.app.mqtt.connected, 'the app to connect');
  t.equal(
    (
      await rt.post('blocks/create', {
        id: 'Beer Sensor',
        type: 'TempSensorMock',
        data: { setting: 20, connected: true },
      })
    ).status,
    201,
  );
  const client = await Recorder.connect(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`);
  t.teardown(() => client.client.endAsync());
  const data = { [PARENT]: Object.fromEntries(Array.from({ length: FIELDS }, (_, i) => [`f${i}`, i])) };
  const own = 'edge-one/Beer Sensor/value[degC]';
  const theirs = [`other/${PARENT}/f0`, `other/${PARENT}/f${FIELDS - 1}`];
  const deadline = performance.now() + limit(30_000);
  let names: string[] = [];
  while (performance.now() < deadline) {
    await client.publish('svc/history/other', JSON.stringify({ key: 'other', data }));
    await new Promise((r) => setTimeout(r, 300));
    await rt.app.history!.store.flush();
    const res = await rt.post('/history/timeseries/ranges', { fields: [own, ...theirs], duration: '5m' });
    names = (res.body as { metric: { __name__: string } }[]).map((r) => r.metric.__name__);
    if (names.length === 3) break;
  }
  t.same(names, [own, ...theirs], "the controller's own field and the publisher's are stored");
  const history = rt.app.status().history as {
    ok: boolean;
    error: string | null;
    dropped: { points: object; own: object };
  };
  t.equal(history.error, null);
  t.equal(history.ok, true);
  t.same(history.dropped.points, {}, 'nothing dropped');
  t.same(history.dropped.own, {}, "none of the controller's own");
});
