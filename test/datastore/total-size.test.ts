// Every document is capped (MAX_DOCUMENT_BYTES), but their number was not: a client could store a
// thousand documents of 1 MiB, and one `mget` of the namespace (or a backup of the controller's
// namespace) would then build a gigabyte answer, more than a Pi's memory. The store as a whole
// now has a bound (DATASTORE_BYTES): a write past it is refused with 507, naming the limit and
// what is used, and nothing of it is stored; a write that does not grow the store still works.
// A rename in a full store still takes the block's alert rules with it (the service's own write).
// A store already past the bound when the service starts (one from before it) is said in the log,
// with its largest namespaces, and counted as it is: a growing write is refused.
import t from 'tap';
import { DATASTORE_BYTES } from '../../src/shared/limits.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApp } from '../helpers/app.js';
import { logLines } from '../helpers/log-lines.js';
import { datastoreApp } from './helpers.js';

const BIG = 1_000_000;
const doc = (id: string, bytes = BIG) => ({ namespace: 'big', id, x: 'x'.repeat(bytes) });
const stored = (d: object) => Buffer.byteLength(JSON.stringify(d));

t.test('the datastore refuses a write past its total size, naming the limit and what is used', async (t) => {
  const { ds, events, close } = await datastoreApp();
  t.teardown(close);
  const fit = Math.floor(DATASTORE_BYTES / stored(doc('d00')));
  let used = 0;
  for (let i = 0; i < fit; i++) {
    const d = doc(`d${String(i).padStart(2, '0')}`);
    const res = await ds('set', { value: d });
    t.equal(res.status, 200, `document ${i} fits`);
    used += stored(d);
  }
  events();

  const one = await ds('set', { value: doc('one-more') });
  t.equal(one.status, 507, JSON.stringify(one.body).slice(0, 300));
  t.match(one.body.message, /datastore is full/);
  t.match(one.body.message, new RegExp(`\\b${DATASTORE_BYTES}\\b`), 'names the limit');
  t.match(one.body.message, new RegExp(`\\b${used}\\b`), 'names what is used');
  t.match(one.body.message, /delete/, 'says how to make room');

  const many = await ds('mset', { values: [{ namespace: 'big', id: 'small' }, doc('another')] });
  t.equal(many.status, 507, 'a call of several is refused whole');
  t.same(events(), [], 'nothing published');

  const all = await ds('mget', { namespace: 'big' });
  t.equal(all.status, 200);
  t.equal(all.body.values.length, fit, 'nothing of the refused writes was stored');
  t.ok(Buffer.byteLength(JSON.stringify(all.body)) <= DATASTORE_BYTES + 1024, 'the whole namespace fits the bound');

  // A write that does not grow the store is taken: the same document again, or a smaller one.
  t.equal((await ds('set', { value: doc('d00', BIG - 10) })).status, 200, 'a smaller replacement is taken');
  // Room made by deleting is room to write.
  t.equal((await ds('delete', { namespace: 'big', id: 'd01' })).body.count, 1);
  t.equal((await ds('set', { value: doc('one-more') })).status, 200, 'after a delete it fits');
  const pair = { values: [doc('e1', 400_000), doc('e2', 400_000)] };
  t.equal((await ds('mset', pair)).status, 507, 'two more do not fit yet');
  t.equal((await ds('mdelete', { namespace: 'big', filter: 'd1*' })).body.count, 6);
  t.equal((await ds('mset', pair)).status, 200, 'and after an mdelete');
});

t.test('a backup load past the total size keeps the controller documents as they were, saying why', async (t) => {
  const { ds, post, close } = await datastoreApp();
  t.teardown(close);
  const fit = Math.floor(DATASTORE_BYTES / stored(doc('d00')));
  for (let i = 0; i < fit; i++) t.equal((await ds('set', { value: doc(`d${i}`) })).status, 200);
  await ds('set', { value: { namespace: 'edge-one', id: 'kept', v: 1 } });
  const backup = (await post('blocks/backup/save')).body;
  backup.store = [{ namespace: 'edge-one', id: 'kept', v: 2, x: 'x'.repeat(BIG) }];
  const load = await post('blocks/backup/load', backup);
  t.equal(load.status, 200, 'the blocks still load');
  t.match(JSON.stringify(load.body), /documents of 'edge-one' were kept as they were: the datastore is full/);
  t.same((await ds('get', { namespace: 'edge-one', id: 'kept' })).body.value, {
    namespace: 'edge-one',
    id: 'kept',
    v: 1,
  });
  // A load that does not grow the store is taken.
  backup.store = [{ namespace: 'edge-one', id: 'kept', v: 3 }];
  t.equal((await post('blocks/backup/load', backup)).status, 200);
  t.equal((await ds('get', { namespace: 'edge-one', id: 'kept' })).body.value.v, 3);
});

t.test('a rename with the store full: the alert rules still follow the block', async (t) => {
  const { ds, post, app, close } = await datastoreApp();
  t.teardown(close);
  app.alerts.start();
  t.equal((await post('blocks/create', { id: 'Beer', type: 'TempSensorMock', data: { setting: 20 } })).status, 201);
  app.alerts.setRules({ blocks: { Beer: { enabled: false } } });
  const fit = Math.floor(DATASTORE_BYTES / stored(doc('d00')));
  for (let i = 0; i < fit; i++) t.equal((await ds('set', { value: doc(`d${i}`) })).status, 200);
  // Filled to a few bytes short of the bound: the rules document cannot grow by the longer name.
  const room = app.documents.maxBytes - app.documents.bytes - stored(doc('pad', 0));
  t.equal((await ds('set', { value: doc('pad', room - 4) })).status, 200, 'padded to 4 bytes of room');
  const renamed = await post('blocks/rename', { existing: 'Beer', desired: 'Beer in the big fermenter' });
  t.equal(renamed.status, 200, JSON.stringify(renamed.body).slice(0, 300));
  const rules = (await ds('get', { namespace: 'edge-one', id: 'alerts' })).body.value;
  t.same(rules?.blocks, { 'Beer in the big fermenter': { enabled: false } }, 'the rules follow the new name');
  t.equal(
    (app.alerts.currentRules().rules.blocks as Record<string, { enabled?: boolean }>)['Beer in the big fermenter']
      ?.enabled,
    false,
    'and are in force',
  );
});

t.test('a store already past the bound at a start: the log says so, naming its largest namespaces', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-full-store-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const before = await startApp({}, { listen: false, dataDir });
  // As a release before the bound could leave it (written here past the bound on purpose).
  const docs = Array.from({ length: 18 }, (_, i) => doc(`d${i}`));
  before.app.documents.setMany(docs, { unbounded: true });
  await before.close();

  const { log, lines } = logLines('warn');
  const after = await startApp({}, { listen: false, dataDir, log });
  t.teardown(() => after.close());
  const said = lines.find((l) => /datastore/.test(l.msg) && /past/.test(l.msg));
  t.ok(said, `a warning at the start: ${lines.map((l) => l.msg).join(' | ')}`);
  t.match(said?.msg, new RegExp(`\\b${DATASTORE_BYTES}\\b`), 'names the bound');
  t.match(said?.msg, /'big' \d+ bytes/, 'and the namespace that takes the most');
  const grow = await after.post('/history/datastore/set', { value: { namespace: 'big', id: 'new', v: 1 } });
  t.equal(grow.status, 507, 'a growing write is refused');
});
