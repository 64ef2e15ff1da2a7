// Pure pieces of the MQTT layer: history filtering, ttl, topic matching, backoff.
import ms from 'ms';
import t from 'tap';
import { Backoff } from '../../src/mqtt/backoff.js';
import { numbersOnly, type NumericTree } from '../../src/codec/logged-numbers.js';
import { ALL, type BlockJson, type BlockRuntime } from '../../src/runtime/runtime.js';
import { testRuntime } from '../helpers/runtime.js';
import { topicMatches, topicsFor } from '../../src/mqtt/topics.js';
import { ttlFor } from '../../src/mqtt/ttl.js';

/** The history message the long way: every block's logged object, numbers only; blocks without numbers left out. */
function historyPayload(key: string, logged: BlockJson[]): { key: string; data: NumericTree } {
  const data: NumericTree = {};
  for (const block of logged) {
    const kept = numbersOnly(block.data);
    if (kept !== undefined && typeof kept === 'object') data[block.id] = kept;
  }
  return { key, data };
}

/** The controller's history message as the emission makes it: the runtime's history read, within `{key, data}`. */
function cachedHistoryPayload(key: string, runtime: BlockRuntime) {
  const history = runtime.read(ALL, 'history');
  const bytes = history.within((data) => ({ key, data }));
  return { message: { key, data: history.json() }, bytes };
}

t.test('history keeps numbers only, at any depth', async (t) => {
  t.same(
    numbersOnly({
      'value[degC]': 20.5,
      on: true,
      off: false,
      gone: null,
      name: 'x',
      nan: NaN,
      inf: Infinity,
      nested: { a: 1, b: 'no', c: { d: null } },
    }),
    { 'value[degC]': 20.5, on: 1, off: 0, nested: { a: 1 } },
  );
  t.same(
    numbersOnly({ list: [1, 'two', true, null], objects: [{ a: 1, s: 'x' }, { s: 'y' }, { b: 2 }] }),
    { list: { 0: 1, 2: 1 }, objects: { 0: { a: 1 }, 2: { b: 2 } } },
    'arrays keep their item index as key',
  );
  t.equal(numbersOnly({ only: 'strings', and: null, empty: {}, list: [] }), undefined, 'nothing numeric at all');
  const payload = historyPayload('edge-one', [
    { id: 'A', nid: 100, type: 'T', serviceId: 'edge-one', data: { 'value[degC]': 1 } },
    { id: 'B', nid: 101, type: 'T', serviceId: 'edge-one', data: { 'value[degC]': null } },
  ]);
  t.same(payload, { key: 'edge-one', data: { A: { 'value[degC]': 1 } } }, 'blocks without numbers are left out');
});

t.test(
  'the history message from the encoding cache is the one made from every block, and an unchanged block is not read again',
  async (t) => {
    const { runtime, clock, units } = testRuntime();
    runtime.create({ id: 'Sensor', type: 'TempSensorMock', data: { setting: 19, fluctuations: [] } });
    runtime.create({
      id: 'Moving',
      type: 'TempSensorMock',
      data: { setting: 19, fluctuations: [{ amplitude: 1, period: 60 }] },
    });
    runtime.create({
      id: 'Pair',
      type: 'SetpointSensorPair',
      data: { enabled: true, storedSetting: 20, 'sensorId<>': 'Sensor' },
    });
    // Made the long way, from the logged objects: the message read from the field tables must equal it.
    const expect = () => historyPayload('edge-one', runtime.read(ALL, 'logged').json());
    const parts: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 5; i++) {
      clock.advance(5000);
      runtime.tick();
      const { message, bytes } = cachedHistoryPayload('edge-one', runtime);
      t.same(message, expect(), `cycle ${i}: the same message`);
      t.same(JSON.parse(bytes.toString()), message, 'and its text');
      parts.push(message.data);
    }
    // A part made again is a new object; one kept is the same (the history ingest flattens it once).
    t.equal(new Set(parts.map((d) => d.Sensor)).size, 1, 'the sensor at rest was read once in five cycles');
    t.equal(new Set(parts.map((d) => d.Moving)).size, 5, 'the moving one every cycle');
    const before = cachedHistoryPayload('edge-one', runtime).message.data.Sensor;
    units.temperature = 'degF';
    const after = cachedHistoryPayload('edge-one', runtime);
    t.same(after.message, expect(), 'a unit change: the message in the new unit');
    t.same(JSON.parse(after.bytes.toString()), after.message, 'and its text');
    t.not(after.message.data.Sensor, before, 'made again');
    t.ok(
      Object.keys(after.message.data.Sensor as object).some((k) => k.includes('degF')),
      'with the new unit in its keys',
    );
    runtime.patch({ id: 'Sensor', type: 'TempSensorMock', data: { setting: 21 } });
    const written = cachedHistoryPayload('edge-one', runtime);
    t.same(written.message, expect(), 'a write: the new value');
    t.same(JSON.parse(written.bytes.toString()), written.message, 'and its text');
    runtime.rename({ existing: 'Sensor', desired: 'Renamed' });
    t.same(
      JSON.parse(cachedHistoryPayload('edge-one', runtime).bytes.toString()),
      expect(),
      'a rename: the text names the new id',
    );
  },
);

t.test('ttl is six intervals in a simple format that parses back exactly', async (t) => {
  t.equal(ttlFor(5000), '30s');
  t.equal(ttlFor(50), '300ms');
  t.equal(ttlFor(1234), '7404ms');
  for (const interval of [50, 1234, 5000, 60000]) t.equal(ms(ttlFor(interval) as ms.StringValue), interval * 6);
});

t.test('topics and filters', async (t) => {
  const topics = topicsFor('svc', 'edge-one');
  t.same(
    [topics.state, topics.patch, topics.history, topics.controller('patch'), topics.datastore('edge-one')],
    [
      'svc/state/edge-one',
      'svc/state/edge-one/patch',
      'svc/history/edge-one',
      'svc/controller/blocks/patch',
      'svc/datastore/edge-one',
    ],
  );
  t.ok(topicMatches('svc/datastore/+', 'svc/datastore/a'));
  t.notOk(topicMatches('svc/datastore/+', 'svc/datastore/a/b'));
  t.ok(topicMatches('svc/#', 'svc/datastore/a/b'));
  t.ok(topicMatches('svc/#', 'svc'));
  t.notOk(topicMatches('svc/state/x', 'svc/state/x/patch'));
  t.notOk(topicMatches('svc/state/x/patch', 'svc/state/x'));
});

t.test('backoff doubles up to its cap and resets', async (t) => {
  const b = new Backoff(100, 1000);
  t.same([b.next(), b.next(), b.next(), b.next(), b.next(), b.next()], [100, 200, 400, 800, 1000, 1000]);
  b.reset();
  t.equal(b.next(), 100);
});
