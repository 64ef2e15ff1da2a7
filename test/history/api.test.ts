// The history service in the running app, on both brokers: another publisher's history (a plain
// MQTT client) becomes queryable, the controller's own history is stored, bad messages are
// dropped with a warning naming the topic, query bodies are checked (422), CSV and Swagger, and
// the websocket stream pushes a new point within one emit interval.
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { Recorder, until, VARIANTS } from '../mqtt/fixtures.js';
import { createLogger } from '../../src/log.js';
import { Writable } from 'node:stream';
import pino from 'pino';
import { at } from '../helpers/json.js';
import { limit } from '../helpers/limits.js';
import { openHistoryStream } from '../helpers/history-stream.js';

const INTERVAL = 300;

for (const variant of VARIANTS) {
  t.test(variant.name, async (t) => {
    const bus = await variant.setup();
    t.teardown(() => bus.close());
    const logs: string[] = [];
    const log = pino(
      { level: 'warn' },
      new Writable({ write: (c, _e, cb) => (logs.push(c.toString()), cb()) }),
    ) as unknown as ReturnType<typeof createLogger>;
    const rt = await startApp({ ...bus.overrides, emitInterval: String(INTERVAL) }, { log });
    t.teardown(() => rt.close());
    const { app } = rt;
    const root = rt.base.replace(/\/edge-one$/, '');
    const post = async (route: string, body: unknown) => {
      const res = await fetch(`${root}/history/timeseries/${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      return {
        status: res.status,
        text,
        body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined,
      };
    };
    await until(() => app.mqtt.connected, 'the app to connect');
    const client = await Recorder.connect(bus.brokerUrl(app));
    t.teardown(() => client.client.endAsync());

    await t.test('another publisher, published with a plain MQTT client, is queryable', async (t) => {
      await client.publish(
        'svc/history/fermenter-bridge',
        JSON.stringify({
          key: 'fermenter-bridge',
          data: { beer: { 'temp[degC]': 19.5, label: 'IPA' }, heater: { on: true }, sg: '1.012' },
        }),
      );
      await client.publish('svc/history', JSON.stringify({ key: 'bare', data: { v: 3 } }));
      await client.publish('svc/historyX/a', JSON.stringify({ key: 'wrong', data: { v: 3 } }));
      let metrics: any[] = [];
      for (let i = 0; i < 50 && metrics.length < 4; i++) {
        metrics = (
          await post('metrics', {
            fields: [
              'fermenter-bridge/beer/temp[degC]',
              'fermenter-bridge/heater/on',
              'fermenter-bridge/sg',
              'fermenter-bridge/beer/label',
              'bare/v',
              'wrong/v',
            ],
          })
        ).body;
        await new Promise((r) => setTimeout(r, 100));
      }
      t.same(metrics.map((m) => [m.metric, m.value]).sort(), [
        ['bare/v', 3],
        ['fermenter-bridge/beer/temp[degC]', 19.5],
        ['fermenter-bridge/heater/on', 1],
        ['fermenter-bridge/sg', 1.012],
      ]);
      t.ok(Math.abs(Date.parse(metrics[0].timestamp) - Date.now()) < limit(10_000), 'stamped at receipt');
      const fields = (await post('fields', { duration: '1h' })).body as string[];
      t.ok(
        fields.includes('fermenter-bridge/beer/temp[degC]') && fields.includes('bare/v'),
        'fields lists both publishers',
      );
      t.notOk(fields.includes('wrong/v'), 'historyX is not history');
      t.same([...fields].sort(), fields, 'sorted');
      const ranges = (
        await post('ranges', { fields: ['nothing/here', 'fermenter-bridge/beer/temp[degC]'], duration: '10m' })
      ).body;
      t.equal(ranges.length, 1, 'fields without data are left out');
      t.equal(ranges[0].metric.__name__, 'fermenter-bridge/beer/temp[degC]');
      t.equal(ranges[0].values.at(-1)[1], '19.5');
      t.equal(typeof ranges[0].values[0][0], 'number');
    });

    await t.test("the controller's own history is stored", async (t) => {
      t.equal(
        (
          await rt.post('blocks/create', {
            id: 'Beer Sensor',
            type: 'TempSensorMock',
            data: { setting: 21.5, connected: true },
          })
        ).status,
        201,
      );
      let fields: string[] = [];
      for (let i = 0; i < 50 && !fields.some((f) => f.startsWith('edge-one/Beer Sensor/')); i++) {
        await new Promise((r) => setTimeout(r, 100));
        fields = (await post('fields', {})).body;
      }
      const name = fields.find((f) => f.startsWith('edge-one/Beer Sensor/value'));
      t.ok(name, `a value field of the sensor (${fields.filter((f) => f.startsWith('edge-one/Beer')).join(', ')})`);
      const ranges = (await post('ranges', { fields: [name] })).body;
      t.equal(Number(ranges[0].values.at(-1)[1]), 21.5);
    });

    await t.test(
      'bad history messages are dropped with a warning naming the topic; later ones still count',
      async (t) => {
        for (const bad of [
          'hello',
          '',
          '[1,2]',
          '{"pancakes":"yummy"}',
          '{"key":"m","data":"no"}',
          '{"key":"a/b","data":{"x":1}}',
        ])
          await client.publish('svc/history/bad-one', bad);
        await client.publish('svc/history/bad-one', JSON.stringify({ key: 'good', data: { x: 7 } }));
        let metrics: any[] = [];
        for (let i = 0; i < 50 && !metrics.length; i++) {
          await new Promise((r) => setTimeout(r, 100));
          metrics = (await post('metrics', { fields: ['good/x'] })).body;
        }
        t.equal(metrics[0]?.value, 7);
        const warnings = logs.filter((l) => l.includes('svc/history/bad-one'));
        t.equal(warnings.length, 1, 'one warning per minute per topic');
        t.match(warnings[0], /dropped/);
      },
    );

    await t.test('query bodies: 422 naming the problem', async (t) => {
      const cases: Array<[string, unknown, RegExp]> = [
        ['fields', { duration: [] }, /duration/],
        ['fields', { duration: '1 fortnight' }, /not a duration/],
        ['ranges', {}, /fields: is required/],
        ['ranges', { fields: ['a'], bogus: 1 }, /bogus: unknown key/],
        ['ranges', { fields: ['a'], strat: '2021-01-01T00:00:00Z' }, /strat: unknown key; did you mean "start"/],
        ['ranges', { fields: ['a', ''] }, /fields\.1: must be a non-empty string/],
        ['metrics', { fields: ['a'], duration: {} }, /duration: must be a duration/],
        ['ranges', { fields: ['a'], start: '2021-01-02T00:00:00Z', end: '2021-01-01T00:00:00Z' }, /after end/],
        [
          'ranges',
          { fields: ['a'], start: '2021-01-01T00:00:00Z', end: '2021-01-02T00:00:00Z', duration: '1h' },
          /At most two out of three/,
        ],
        ['ranges', { fields: Array.from({ length: 10_000 }, (_, i) => `f${i}`) }, /at most 1000/],
        ['ranges', { fields: ['a'], start: 'yesterday' }, /start must be/],
        ['metrics', {}, /fields/],
        ['csv', {}, /fields/],
        ['csv', { fields: ['a'] }, /precision/],
      ];
      for (const [route, body, message] of cases) {
        const res = await post(route, body);
        t.equal(res.status, 422, `${route} ${JSON.stringify(body).slice(0, 60)}`);
        t.match(res.body?.message, message);
      }
    });

    await t.test('csv: header, then raw points; only the header without data', async (t) => {
      const empty = await post('csv', { fields: ['a', 'b', 'c'], precision: 's' });
      t.equal(empty.status, 200);
      t.equal(empty.text, 'time,a,b,c\n');
      const csv = await post('csv', {
        fields: ['bare/v', 'fermenter-bridge/sg'],
        precision: 'ISO8601',
        duration: '1h',
      });
      const lines = csv.text.trim().split('\n');
      t.equal(lines[0], 'time,bare/v,fermenter-bridge/sg');
      const cells = lines.slice(1).map((l) => l.split(','));
      t.ok(
        cells.every((c) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/.test(c[0]!) && c.length === 3),
        `ISO8601 times, one cell per field: ${lines.join(' | ')}`,
      );
      t.ok(
        cells.some((c) => c[1] === '3'),
        'bare/v in its column',
      );
      t.ok(
        cells.some((c) => c[2] === '1.012'),
        'sg in its column',
      );
    });

    await t.test('ping and Swagger', async (t) => {
      for (const method of ['GET', 'POST']) {
        const res = await fetch(`${root}/history/timeseries/ping`, { method });
        t.same(await res.json(), { ping: 'pong' }, method);
      }
      const doc = await (await fetch(`${root}/history/api/doc/json`)).json();
      for (const p of ['ping', 'fields', 'ranges', 'metrics', 'csv'])
        t.ok(at(doc, 'paths', `/history/timeseries/${p}`), `${p} documented`);
      t.ok(at(doc, 'paths', '/history/timeseries/ranges', 'post', 'requestBody'), 'ranges has a body schema');
    });

    await t.test(
      'websocket stream: initial ranges, then a new point within one emit interval; metrics; stop; bad commands',
      async (t) => {
        const { ws, frames } = await openHistoryStream(t, root);
        const field = 'edge-one/Beer Sensor/value[degC]';
        ws.send(JSON.stringify({ id: 'g1', command: 'ranges', query: { fields: [field], duration: '10m' } }));
        await until(() => frames.some((f) => f.id === 'g1' && f.data.initial), 'the initial frame');
        const initial = frames.find((f) => f.id === 'g1' && f.data.initial);
        t.equal(initial.data.ranges[0].metric.__name__, field);
        const sentAt = Date.now();
        await until(
          () => frames.some((f) => f.id === 'g1' && f.data.initial === false),
          'a pushed point',
          INTERVAL * 4,
        );
        const pushed = frames.find((f) => f.id === 'g1' && f.data.initial === false);
        t.ok(
          Date.now() - sentAt <= INTERVAL + 150,
          `pushed ${Date.now() - sentAt} ms after the initial frame (interval ${INTERVAL} ms)`,
        );
        t.equal(Number(pushed.data.ranges[0].values[0][1]), 21.5);
        t.ok(pushed.data.ranges[0].values[0][0] * 1000 > Date.now() - 5000, 'a new point');

        ws.send(JSON.stringify({ id: 'm1', command: 'metrics', query: { fields: [field] } }));
        await until(() => frames.some((f) => f.id === 'm1'), 'metrics frame');
        t.equal(frames.find((f) => f.id === 'm1').data.metrics[0].metric, field);

        ws.send(JSON.stringify({ id: 'g1', command: 'stop' }));
        await new Promise((r) => setTimeout(r, 100));
        const count = frames.filter((f) => f.id === 'g1').length;
        await new Promise((r) => setTimeout(r, INTERVAL * 3));
        t.equal(frames.filter((f) => f.id === 'g1').length, count, 'no frames after stop');

        ws.send('{"empty":true}');
        ws.send(JSON.stringify({ id: 'x', command: 'ranges', query: { fields: ['a'], duration: '1 fortnight' } }));
        await until(() => frames.filter((f) => f.error).length === 2, 'two error frames');
        const errors = frames.filter((f) => f.error);
        t.equal(errors[0].message, '{"empty":true}');
        t.match(errors[1].error, /not a duration/);
      },
    );
  });
}
