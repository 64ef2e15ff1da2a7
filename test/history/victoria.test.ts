// VictoriaMetrics as the app's history store (--history-url), and its write queue while the
// database is away: bounded, thinned when full, written when it answers again; writes never
// block or throw.
// tags: slow alone (a real VictoriaMetrics, its ingestion waited for on the real clock)
import t from 'tap';
import { silentLogger } from '../../src/log.js';
import { VictoriaStore } from '../../src/history/victoria-store.js';
import { startApp } from '../helpers/app.js';
import { freePort } from '../helpers/mosquitto.js';
import { startVictoria } from '../helpers/victoria.js';
import { Recorder, until } from '../mqtt/fixtures.js';
import { arrayAt } from '../helpers/json.js';
import { limit } from '../helpers/limits.js';

t.test('the app with --history-url stores MQTT history in VictoriaMetrics', async (t) => {
  const vm = await startVictoria();
  t.teardown(() => vm.stop());
  const rt = await startApp({ historyUrl: vm.url, emitInterval: '200' });
  t.teardown(() => rt.close());
  t.equal(rt.app.history?.store.kind, 'victoria');
  await until(() => rt.app.mqtt.connected, 'the app to connect');
  const client = await Recorder.connect(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`);
  t.teardown(() => client.client.endAsync());
  for (let i = 0; i < 3; i++)
    await client.publish(
      'svc/history/other',
      JSON.stringify({ key: 'other', data: { 'temp[degC]': 10 + i, 'my field': i } }),
    );
  const root = rt.base.replace(/\/edge-one$/, '');
  const post = async (route: string, body: unknown) =>
    (
      await fetch(`${root}/history/timeseries/${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json();
  let ranges: { metric: { __name__: string } }[] = [];
  for (let i = 0; i < 60 && !ranges.length; i++) {
    await new Promise((r) => setTimeout(r, 250));
    await rt.app.history!.store.flush();
    ranges = arrayAt(
      await post('ranges', { fields: ['other/temp[degC]', 'other/my field'], duration: '5m' }),
    ) as typeof ranges;
  }
  t.same(
    ranges.map((r) => r.metric.__name__),
    ['other/temp[degC]', 'other/my field'],
  );
  t.ok(arrayAt(await post('fields', { duration: '1h' })).includes('other/temp[degC]'));
  t.same(await (await fetch(`${root}/history/timeseries/ping`)).json(), { ping: 'pong' });
});

t.test('while VictoriaMetrics is away: bounded queue, thinned when full, written on return', async (t) => {
  const port = await freePort();
  const store = new VictoriaStore({
    url: `http://127.0.0.1:${port}`,
    log: silentLogger,
    maxPendingLines: 1000,
    timeoutMs: 2000,
  });
  t.teardown(() => store.close());
  const t0 = Date.now() - 3_600_000;
  const started = performance.now();
  for (let i = 0; i < 3000; i++) store.write('away', [['v', i]], t0 + i * 1000);
  t.ok(performance.now() - started < limit(500), 'writes do not wait for the database');
  await store.flush();
  const status = store.status();
  t.equal(status.ok, false, 'the failure shows in status');
  t.ok((status.pendingLines as number) < 1000, `queue bounded (${status.pendingLines} lines)`);
  t.ok((status.thinned as number) > 0, 'thinned');
  await t.rejects(store.ping());

  const vm = await startVictoria(port);
  t.teardown(() => vm.stop());
  await store.flush();
  t.equal(store.status().pendingLines, 0, 'queue written');
  const raw = await store.raw(['away/v'], t0 - 1000, t0 + 3_000_000);
  t.equal(raw[0]!.t.length, status.pendingLines, 'every queued point arrived');
  t.equal(raw[0]!.v.at(-1), 2999, 'the newest point survived thinning');
});
