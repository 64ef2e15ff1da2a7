import t from 'tap';
import { EchoFilter } from '../../src/store/datastore-bus.js';
import { changeEvents, parseDatastoreEvent } from '../../src/store/datastore-events.js';

t.test('changed documents: one event per top-level namespace, sorted by key', async (t) => {
  const docs = [
    { namespace: 'b', id: '2' },
    { namespace: 'a:x', id: '1' },
    { namespace: 'a', id: '3' },
    { namespace: '', id: 'b' },
    { namespace: 'ns1', id: 'x' },
    { namespace: '', id: 'ns' },
    { namespace: 'ns', id: 'a' },
  ];
  const events = changeEvents('svc', { changed: docs });
  t.same(
    events,
    [
      {
        topic: 'svc/datastore/a',
        payload: {
          changed: [
            { namespace: 'a', id: '3' },
            { namespace: 'a:x', id: '1' },
          ],
        },
      },
      {
        topic: 'svc/datastore/b',
        payload: {
          changed: [
            { namespace: '', id: 'b' },
            { namespace: 'b', id: '2' },
          ],
        },
      },
      {
        topic: 'svc/datastore/ns',
        payload: {
          changed: [
            { namespace: '', id: 'ns' },
            { namespace: 'ns', id: 'a' },
          ],
        },
      },
      { topic: 'svc/datastore/ns1', payload: { changed: [{ namespace: 'ns1', id: 'x' }] } },
    ],
    'ns, ns1:x, ns:a sort apart but ns still gets a single event',
  );
  t.equal(new Set(events.map((e) => e.topic)).size, events.length, 'never two events on one topic');
});

t.test('deleted keys: grouped the same way, keys not ids', async (t) => {
  t.same(changeEvents('root/x', { deleted: ['q:b', 'p:z:y', 'p', 'p:a'] }), [
    { topic: 'root/x/datastore/p', payload: { deleted: ['p', 'p:a', 'p:z:y'] } },
    { topic: 'root/x/datastore/q', payload: { deleted: ['q:b'] } },
  ]);
});

t.test('nothing changed or deleted: no event; never both shapes', async (t) => {
  t.same(changeEvents('svc', { changed: [] }), []);
  t.same(changeEvents('svc', { deleted: [] }), []);
  for (const e of [
    ...changeEvents('svc', { changed: [{ namespace: 'a', id: 'b' }] }),
    ...changeEvents('svc', { deleted: ['a:b'] }),
  ]) {
    t.equal(Object.keys(e.payload).length, 1, 'exactly one of changed/deleted');
  }
});

t.test('incoming events are parsed defensively', async (t) => {
  const doc = { namespace: 'n', id: 'i', x: 1 };
  t.same(parseDatastoreEvent({ changed: [doc] }), { changed: [doc], deleted: [] });
  t.same(parseDatastoreEvent(JSON.stringify({ deleted: ['n:i'] })), { changed: [], deleted: ['n:i'] });
  t.same(
    parseDatastoreEvent(Buffer.from(JSON.stringify({ changed: [doc, { id: 'no-ns' }, 'x'], deleted: [3, 'k'] }))),
    { changed: [doc], deleted: ['k'] },
    'bad items dropped',
  );
  for (const bad of ['{', '[]', 'null', null, 5, {}, { changed: 'x' }])
    t.equal(parseDatastoreEvent(bad), null, `${JSON.stringify(bad)} is not an event`);
});

t.test('the echo filter recognises each published payload once, within its ttl', async (t) => {
  let now = 0;
  const echoes = new EchoFilter(1000, 3, () => now);
  echoes.remember({ changed: [{ namespace: 'a', id: 'b' }] });
  t.ok(echoes.take({ changed: [{ namespace: 'a', id: 'b' }] }));
  t.notOk(echoes.take({ changed: [{ namespace: 'a', id: 'b' }] }), 'only once');
  echoes.remember({ deleted: ['a:b'] });
  now = 1001;
  t.notOk(echoes.take({ deleted: ['a:b'] }), 'expired');
  for (const i of [1, 2, 3, 4]) echoes.remember({ deleted: [`k${i}`] });
  t.notOk(echoes.take({ deleted: ['k1'] }), 'the oldest falls out beyond the cap');
  t.ok(echoes.take({ deleted: ['k4'] }));
});

t.test('the echo filter holds a digest of each payload, not the payload: 200 large events cost little', async (t) => {
  const echoes = new EchoFilter();
  const big = (i: number) => ({ changed: [{ namespace: 'edge-one', id: `layout-${i}`, s: 'x'.repeat(500_000) }] });
  for (let i = 0; i < 200; i++) echoes.remember(big(i));
  t.ok(echoes.heldBytes() <= 200 * 64, `${echoes.heldBytes()} bytes held for 100 MB of events`);
  t.ok(echoes.take(big(7)), 'a large echo is still recognised');
  t.notOk(echoes.take({ ...big(8), changed: [{ ...big(8).changed[0]!, s: 'y' }] }), 'and told from another');
});
