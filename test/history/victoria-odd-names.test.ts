// Block names that hold what line protocol and MetricsQL read as syntax, in combinations the
// generated names rarely draw ('=' or ',' beside a quote, brackets that look like a unit, a
// backslash before a space or a quote, names only of punctuation), through a real
// VictoriaMetrics: every field is written and read back under its name, and nothing is dropped.
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { startVictoria } from '../helpers/victoria.js';
import { SERVICE_ID, sleep, until } from '../mqtt/fixtures.js';
import { limit } from '../helpers/limits.js';

const ODD = [
  'Probe [degC]',
  'x[degF]]',
  '[',
  ']',
  'a]b[c',
  'a="b"',
  'a=",b',
  '",=',
  'k\\ v',
  'k\\"v',
  'a\\,b\\=c',
  '=',
  ',',
  'a/=/b',
  'a/"/b',
  'a / b',
  '{__name__="x"}',
  'a"} or vector(1) or {b="',
  'a\\',
  '"',
  "'",
  '#comment',
  'x #y',
  '.',
  '..',
];

t.test('odd block names through a real VictoriaMetrics: every field written and read back', async (t) => {
  const vm = await startVictoria();
  t.teardown(() => vm.stop());
  const rt = await startApp({ emitInterval: '200', historyUrl: vm.url });
  t.teardown(() => rt.close());
  await until(() => rt.app.mqtt.connected, 'the app to connect');
  const values = new Map<string, number>();
  for (const [i, id] of ODD.entries()) {
    const res = await rt.post('blocks/create', {
      id,
      type: 'TempSensorMock',
      data: { setting: 10 + i, connected: true },
    });
    t.equal(res.status, 201, `create ${JSON.stringify(id)}: ${res.raw.slice(0, 200)}`);
    values.set(`${SERVICE_ID}/${id}/value[degC]`, 10 + i);
  }
  const fields = [...values.keys()];
  let wrong = fields;
  const deadline = performance.now() + limit(30_000);
  while (wrong.length && performance.now() < deadline) {
    const metrics = (await rt.post('/history/timeseries/metrics', { fields })).body as {
      metric: string;
      value: number;
    }[];
    wrong = fields.filter((f) => metrics.find((m) => m.metric === f)?.value !== values.get(f));
    if (wrong.length) await sleep(500);
  }
  t.same(wrong, [], 'each field reads back its own value');
  let listed: string[] = [];
  while (performance.now() < deadline + limit(15_000)) {
    listed = (await rt.post('/history/timeseries/fields', { duration: '1h' })).body as string[];
    if (fields.every((f) => listed.includes(f))) break;
    await sleep(500);
  }
  t.same(
    fields.filter((f) => !listed.includes(f)),
    [],
    'each field is listed by its name',
  );
  const history = rt.app.status().history as Record<string, unknown>;
  t.equal(history.ok, true, `history is ok: ${JSON.stringify(history)}`);
});
