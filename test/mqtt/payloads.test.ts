// Pure pieces of the MQTT layer: history filtering, ttl, topic matching, backoff.
import ms from 'ms';
import t from 'tap';
import { Backoff } from '../../src/mqtt/backoff.js';
import { historyPayload, numbersOnly } from '../../src/mqtt/history.js';
import { topicMatches, topicsFor } from '../../src/mqtt/topics.js';
import { ttlFor } from '../../src/mqtt/ttl.js';

t.test('history keeps numbers only, at any depth', async (t) => {
  t.same(
    numbersOnly({ 'value[degC]': 20.5, on: true, off: false, gone: null, name: 'x', nan: NaN, inf: Infinity, nested: { a: 1, b: 'no', c: { d: null } } }),
    { 'value[degC]': 20.5, on: 1, off: 0, nested: { a: 1 } },
  );
  t.same(numbersOnly({ list: [1, 'two', true, null], objects: [{ a: 1, s: 'x' }, { s: 'y' }, { b: 2 }] }), { list: { 0: 1, 2: 1 }, objects: { 0: { a: 1 }, 2: { b: 2 } } }, 'arrays keep their item index as key');
  t.equal(numbersOnly({ only: 'strings', and: null, empty: {}, list: [] }), undefined, 'nothing numeric at all');
  const payload = historyPayload('edge-one', [
    { id: 'A', nid: 100, type: 'T', serviceId: 'edge-one', data: { 'value[degC]': 1 } },
    { id: 'B', nid: 101, type: 'T', serviceId: 'edge-one', data: { 'value[degC]': null } },
  ]);
  t.same(payload, { key: 'edge-one', data: { A: { 'value[degC]': 1 } } }, 'blocks without numbers are left out');
});

t.test('ttl is six intervals in a simple format that parses back exactly', async (t) => {
  t.equal(ttlFor(5000), '30s');
  t.equal(ttlFor(50), '300ms');
  t.equal(ttlFor(1234), '7404ms');
  for (const interval of [50, 1234, 5000, 60000]) t.equal(ms(ttlFor(interval) as ms.StringValue), interval * 6);
});

t.test('topics and filters', async (t) => {
  const topics = topicsFor('svc', 'edge-one');
  t.same([topics.state, topics.patch, topics.history, topics.controller('patch'), topics.datastore('edge-one')], [
    'svc/state/edge-one',
    'svc/state/edge-one/patch',
    'svc/history/edge-one',
    'svc/controller/blocks/patch',
    'svc/datastore/edge-one',
  ]);
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
