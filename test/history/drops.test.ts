// History is never silently off (issue 44, item 2): every point or message it drops is counted
// by reason in system/status; when the controller's own points are dropped, `history.ok` turns
// false with the reason and the `history-dropped` alert fires.
import t from 'tap';
import { HistoryDrops, OWN_DROP_WINDOW_MS } from '../../src/history/drops.js';
import { VictoriaStore } from '../../src/history/victoria-store.js';
import { silentLogger } from '../../src/log.js';
import { startApp, type RunningApp } from '../helpers/app.js';
import { freePort } from '../helpers/mosquitto.js';
import { Recorder, SERVICE_ID, sleep, until } from '../mqtt/fixtures.js';

interface HistoryStatus {
  ok: boolean;
  error: string | null;
  dropped: { points: Record<string, number>; messages: Record<string, number>; own: Record<string, number> };
}

async function historyStatus(rt: RunningApp): Promise<HistoryStatus> {
  const res = await fetch(`${rt.base}/system/status`);
  return ((await res.json()) as { history: HistoryStatus }).history;
}

async function waitForStatus(
  rt: RunningApp,
  what: string,
  cond: (h: HistoryStatus) => boolean,
): Promise<HistoryStatus> {
  for (let i = 0; i < 100; i++) {
    const h = await historyStatus(rt);
    if (cond(h)) return h;
    await sleep(100);
  }
  throw new Error(`system/status never showed ${what}: ${JSON.stringify(await historyStatus(rt))}`);
}

t.test('every point or message dropped from other publishers is counted by reason in system/status', async (t) => {
  const rt = await startApp({ emitInterval: '200' });
  t.teardown(() => rt.close());
  await until(() => rt.app.mqtt.connected, 'the app to connect');
  const pub = await Recorder.connect(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`);
  t.teardown(() => pub.end());
  await pub.publish('svc/history/junk', 'not json at all');
  await pub.publish('svc/history/junk', JSON.stringify({ key: 'junk', data: 5 }));
  await pub.publish('svc/history/junk', JSON.stringify({ key: 'tab\there', data: { a: 1 } }));
  await pub.publish(
    'svc/history/mixed',
    JSON.stringify({ key: 'mixed', data: { good: 1, 'Brew "Kettle"': 2, 'line\nbreak': 3, 'bell\u0007': 4 } }),
  );
  const h = await waitForStatus(rt, 'four drops', (h) => Object.keys(h.dropped.messages).length === 3);
  t.same(
    h.dropped.messages,
    { 'not JSON': 1, 'not a history message': 1, 'key not storable': 1 },
    'refused messages, by reason',
  );
  t.same(h.dropped.points, { 'field name holds a control character': 2 }, 'fields left out, by reason');
  t.same(h.dropped.own, {}, "none of the controller's own");
  t.equal(h.ok, true, "others' junk does not make history not ok");
  const metrics = (await rt.post('/history/timeseries/metrics', { fields: ['mixed/good', 'mixed/Brew "Kettle"'] }))
    .body as { metric: string; value: number }[];
  t.same(
    metrics.map((m) => [m.metric, m.value]).sort(),
    [
      ['mixed/Brew "Kettle"', 2],
      ['mixed/good', 1],
    ],
    'the rest of that message is stored, the quoted name too',
  );
});

t.test(
  "the controller's own points dropped: history.ok false with the reason, and the history-dropped alert",
  async (t) => {
    const rt = await startApp({ emitInterval: '200' });
    t.teardown(() => rt.close());
    await until(() => rt.app.mqtt.connected, 'the app to connect');
    // A controller with more logged fields than one history message may carry (2000): its whole
    // own message is refused each cycle. Before, only a counter without a reason said so.
    const blocks = Array.from({ length: 1100 }, (_, i) => ({
      id: `Probe ${i}`,
      type: 'TempSensorMock',
      data: { setting: 20, connected: true },
    }));
    for (const batch of [blocks.slice(0, 550), blocks.slice(550)])
      t.equal((await rt.post('blocks/batch/create', batch)).status, 201, `${batch.length} blocks are created`);
    const h = await waitForStatus(rt, 'history not ok', (h) => h.ok === false);
    t.match(h.error, /own history points are being dropped \(too many fields\)/, `the reason: ${h.error}`);
    t.ok((h.dropped.messages['too many fields'] ?? 0) >= 1, 'the refused own message is counted');
    t.ok((h.dropped.own['too many fields'] ?? 0) >= 1, "and counted as the controller's own");

    let alert: { kind: string; text: string } | undefined;
    for (let i = 0; i < 100 && !alert; i++) {
      const res = (await (await fetch(`${rt.base}/alerts`)).json()) as { active: { kind: string; text: string }[] };
      alert = res.active.find((a) => a.kind === 'history-dropped');
      if (!alert) await sleep(100);
    }
    t.ok(alert, 'the history-dropped alert is active');
    t.match(alert?.text, /too many fields/, 'naming the reason');
  },
);

t.test('the own-drop window: not ok while drops are recent, ok again after the window', async (t) => {
  let mono = 0;
  const drops = new HistoryDrops(silentLogger, { intervalMs: 60_000, monotonic: () => mono, now: () => 1e12 });
  t.equal(drops.ownDrop(), null, 'nothing dropped');
  drops.dropPoints('thinned', 10, false, "someone else's");
  t.equal(drops.ownDrop(), null, "someone else's drops are not the controller's");
  drops.dropPoints('store full', 3, true, 'own points');
  t.same(drops.ownDrop(), { at: 1e12, reason: 'store full', detail: 'own points' }, 'an own drop');
  mono += OWN_DROP_WINDOW_MS;
  t.ok(drops.ownDrop(), 'still within the window');
  mono += 1;
  t.equal(drops.ownDrop(), null, 'past the window');
  t.same(drops.status().own, { 'store full': 3 }, 'the count stays');
});

t.test('VictoriaMetrics away: lines thinned from a full queue are counted, the own apart', async (t) => {
  const drops = new HistoryDrops(silentLogger, { intervalMs: 60_000 });
  const store = new VictoriaStore({
    url: `http://127.0.0.1:${await freePort()}`,
    log: silentLogger,
    maxPendingLines: 10,
    timeoutMs: 500,
    drops,
  });
  t.teardown(() => store.close());
  for (let i = 0; i < 10; i++) store.write(SERVICE_ID, [['Beer Sensor/value[degC]', i]], Date.now(), true);
  for (let i = 0; i < 10; i++) store.write('other', [['a', i]], Date.now(), false);
  const { points, own } = drops.status() as { points: Record<string, number>; own: Record<string, number> };
  t.ok(points.thinned! >= 5, `thinned points counted (${points.thinned})`);
  t.ok(own.thinned! >= 1, `the controller's own among them (${own.thinned})`);
  t.ok(drops.ownDrop(), 'so history reports its own points dropped');
  store.write('#comment', [['a', 1]], Date.now(), false);
  t.equal(drops.points['key not storable'], 1, "a key line protocol cannot carry ('#...') is counted, not sent");
  store.write(
    'other',
    [
      ['a"b', 1],
      ['Brew "Kettle"/value', 2],
    ],
    Date.now(),
    false,
  );
  t.equal(
    drops.points['field name not writable in line protocol'],
    1,
    'a quote in the last segment of a field name is counted; one before a slash is written',
  );
});
