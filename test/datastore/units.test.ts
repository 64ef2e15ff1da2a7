import t from 'tap';
import { datastoreApp } from './helpers.js';

const UNITS = { namespace: 'edge-one', id: 'units' };

async function setpointApp() {
  const h = await datastoreApp();
  const created = await h.post('blocks/create', { id: 'sp', type: 'SetpointSensorPair', data: { storedSetting: 20 } });
  if (created.status !== 201) throw new Error(`create failed: ${created.raw}`);
  const setting = async () =>
    (await h.post('blocks/read', { id: 'sp' })).body.data.storedSetting as { unit: string; value: number };
  return { ...h, setting };
}

t.test('the units document set through the API switches block output and bare-number input', async (t) => {
  const { app, ds, post, setting, close } = await setpointApp();
  t.teardown(close);
  t.same(await setting(), { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'degC', value: 20 });

  t.equal((await ds('set', { value: { ...UNITS, temperature: 'degF' } })).status, 200);
  t.equal(app.units.prefs.temperature, 'degF');
  const f = await setting();
  t.equal(f.unit, 'degF');
  t.equal(f.value, 68, '20 degC reads back as 68 degF');

  await post('blocks/patch', { id: 'sp', type: 'SetpointSensorPair', data: { storedSetting: 50 } });
  t.equal((await setting()).value, 50, 'a bare number is taken in degF');

  await ds('mset', { values: [{ ...UNITS, temperature: 'degC' }] });
  t.same(
    await setting(),
    { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'degC', value: 10 },
    '50 degF was stored as 10 degC',
  );

  await ds('set', { value: { ...UNITS, temperature: 'degF' } });
  t.equal((await setting()).unit, 'degF');
  t.same((await ds('delete', UNITS)).body, { count: 1 });
  t.equal((await setting()).unit, 'degC', 'deleting the units document goes back to degC');

  await ds('set', { value: { ...UNITS, temperature: 'degF' } });
  t.same((await ds('mdelete', { namespace: 'edge-one', filter: 'u*' })).body, { count: 1 });
  t.equal((await setting()).unit, 'degC', 'so does mdelete');
});

t.test('a units document in another namespace or under another id changes nothing', async (t) => {
  const { ds, setting, close } = await setpointApp();
  t.teardown(close);
  await ds('mset', {
    values: [
      { namespace: 'edge-two', id: 'units', temperature: 'degF' },
      { namespace: 'edge-one:x', id: 'units', temperature: 'degF' },
      { namespace: 'edge-one', id: 'unit', temperature: 'degF' },
    ],
  });
  t.equal((await setting()).unit, 'degC');
});

/** A fake bus: records publishes and lets the test deliver messages to the subscriber. */
function fakeBus() {
  const published: { topic: string; payload: unknown }[] = [];
  const handlers = new Map<string, (topic: string, payload: unknown) => void>();
  const bus = {
    connected: true,
    published,
    handlers,
    /** Like app.mqtt.publish: false when the message was dropped. */
    publish: (topic: string, payload: unknown) =>
      bus.connected && published.push({ topic, payload: JSON.parse(JSON.stringify(payload)) }) > 0,
    subscribe: (topic: string, handler: (topic: string, payload: unknown) => void) => {
      handlers.set(topic, handler);
      return () => handlers.delete(topic);
    },
    deliver(topic: string, payload: unknown) {
      handlers.get(topic)?.(topic, payload);
    },
  };
  return bus;
}

t.test('units events from another datastore apply live and are not re-published', async (t) => {
  const { app, setting, close } = await setpointApp();
  t.teardown(close);
  const bus = fakeBus();
  const detach = app.attachDatastoreBus(bus);
  t.same([...bus.handlers.keys()], ['svc/datastore/edge-one'], 'subscribed to the controller namespace topic only');

  bus.deliver('svc/datastore/edge-one', { changed: [{ ...UNITS, temperature: 'degF' }] });
  t.equal((await setting()).value, 68, 'a remote change applies');
  t.same(bus.published, [], 'and is not re-published');
  t.equal(app.documents.get('edge-one', 'units'), null, 'nor written to the local store');

  bus.deliver('svc/datastore/edge-one', {
    changed: [
      { namespace: 'edge-one:sub', id: 'units', temperature: 'degC' },
      { namespace: 'edge-one', id: 'other' },
    ],
  });
  t.equal((await setting()).unit, 'degF', 'other documents of the namespace change nothing');
  bus.deliver('svc/datastore/edge-one', 'not json at all');
  bus.deliver('svc/datastore/edge-one', { changed: 'nope', deleted: 5 });
  bus.deliver('svc/datastore/edge-one', null);
  t.equal((await setting()).unit, 'degF', 'garbage is ignored');

  bus.deliver('svc/datastore/edge-one', { deleted: ['edge-one:other', 'edge-one:units'] });
  t.equal((await setting()).unit, 'degC', 'a remote delete resets');
  bus.deliver('svc/datastore/edge-one', Buffer.from(JSON.stringify({ changed: [{ ...UNITS, temperature: 'degF' }] })));
  t.equal((await setting()).unit, 'degF', 'raw JSON buffers are understood too');
  t.same(bus.published, []);

  detach();
  t.same([...bus.handlers.keys()], [], 'detach unsubscribes');
  bus.deliver('svc/datastore/edge-one', { deleted: ['edge-one:units'] });
  t.equal((await setting()).unit, 'degF');
});

t.test('our own event echoed back late does not undo a newer local change', async (t) => {
  const { app, ds, setting, close } = await setpointApp();
  t.teardown(close);
  const bus = fakeBus();
  app.attachDatastoreBus(bus);
  await ds('set', { value: { ...UNITS, temperature: 'degF' } });
  await ds('set', { value: { ...UNITS, temperature: 'degC' } });
  t.equal(bus.published.length, 2, 'both changes published');
  const [first, second] = bus.published;
  bus.deliver(first!.topic, first!.payload);
  t.equal((await setting()).unit, 'degC', 'the stale degF echo was recognised');
  bus.deliver(second!.topic, second!.payload);
  t.equal((await setting()).unit, 'degC');
  bus.deliver('svc/datastore/edge-one', bus.published[0]!.payload);
  t.equal((await setting()).unit, 'degF', 'the same content from someone else (not an echo any more) applies');
});

t.test('an event the bus dropped is not expected back as an echo', async (t) => {
  const { app, ds, setting, close } = await setpointApp();
  t.teardown(close);
  const bus = fakeBus();
  app.attachDatastoreBus(bus);
  bus.connected = false;
  await ds('set', { value: { ...UNITS, temperature: 'degF' } });
  await ds('set', { value: { ...UNITS, temperature: 'degC' } });
  bus.connected = true;
  t.same(bus.published, []);
  bus.deliver('svc/datastore/edge-one', { changed: [{ ...UNITS, temperature: 'degF' }] });
  t.equal((await setting()).unit, 'degF', 'the same content from another datastore applies');
});

t.test('backup save holds the controller documents; load replaces them and the units apply', async (t) => {
  const { ds, post, events, setting, close } = await setpointApp();
  t.teardown(close);
  await ds('mset', {
    values: [
      { ...UNITS, temperature: 'degF' },
      { namespace: 'edge-one:ui', id: 'layout', cols: 3 },
      { namespace: 'elsewhere', id: 'x' },
      { namespace: '', id: 'edge-one' },
    ],
  });
  const backup = (await post('blocks/backup/save')).body;
  t.same(
    backup.store,
    [
      { ...UNITS, temperature: 'degF' },
      { namespace: 'edge-one:ui', id: 'layout', cols: 3 },
    ],
    'only the controller namespace tree',
  );

  await ds('mset', {
    values: [
      { ...UNITS, temperature: 'degC' },
      { namespace: 'edge-one', id: 'stray' },
    ],
  });
  t.equal((await setting()).unit, 'degC');
  events();
  const load = await post('blocks/backup/load', backup);
  t.equal(load.status, 200);
  t.equal((await setting()).unit, 'degF', 'the loaded units document takes effect');
  t.same((await ds('get', { namespace: 'edge-one', id: 'stray' })).body, { value: null }, 'replaced, not merged');
  t.same((await ds('get', { namespace: 'edge-one:ui', id: 'layout' })).body.value.cols, 3, 'unchanged documents kept');
  t.ok((await ds('get', { namespace: 'elsewhere', id: 'x' })).body.value, 'other namespaces untouched');
  t.ok((await ds('get', { namespace: '', id: 'edge-one' })).body.value, 'so is the bare key edge-one');
  t.same(
    events(),
    [
      { topic: 'svc/datastore/edge-one', payload: { deleted: ['edge-one:stray'] }, retain: false },
      { topic: 'svc/datastore/edge-one', payload: { changed: [{ ...UNITS, temperature: 'degF' }] }, retain: false },
    ],
    'subscribers hear what the load changed, in separate shapes',
  );
});

t.test('backup load leaves out documents that are invalid or outside the controller namespace', async (t) => {
  const { ds, post, close } = await setpointApp();
  t.teardown(close);
  await ds('set', { value: { namespace: 'other', id: 'keep', v: 1 } });
  const backup = (await post('blocks/backup/save')).body;
  backup.store = [
    { ...UNITS, temperature: 'degF' },
    { namespace: 'other', id: 'keep', v: 2 },
    { namespace: 'edge-one', id: 'bad id' },
    'text',
    { namespace: 'edge-onex', id: 'y' },
  ];
  const load = await post('blocks/backup/load', backup);
  t.equal(load.status, 200, 'the blocks still load');
  t.equal((await ds('get', UNITS)).body.value.temperature, 'degF', 'the valid controller document is stored');
  t.equal(
    (await ds('get', { namespace: 'other', id: 'keep' })).body.value.v,
    1,
    'a backup cannot overwrite another namespace',
  );
  t.same((await ds('mget', { namespace: 'edge-one' })).body.values, [{ ...UNITS, temperature: 'degF' }]);
  t.same((await ds('mget', { namespace: 'edge-onex' })).body.values, []);
});

t.test(
  'a units document with a value the service does not know is refused with 422, naming the allowed values',
  async (t) => {
    const { app, ds, setting, close } = await setpointApp();
    t.teardown(close);
    await ds('set', { value: { ...UNITS, temperature: 'degF' } });
    const set = await ds('set', { value: { ...UNITS, temperature: 'fahrenheit' } });
    t.equal(set.status, 422, set.raw);
    t.match(set.body.message, `value.temperature: must be 'degC' or 'degF', got "fahrenheit"`);
    const mset = await ds('mset', {
      values: [
        { namespace: 'edge-one', id: 'other', x: 1 },
        { namespace: 'brewblox-global', id: 'units', temperature: 5 },
      ],
    });
    t.equal(mset.status, 422, 'the global units document too; nothing of the call is stored');
    t.match(mset.body.message, `values.1.temperature: must be 'degC' or 'degF', got 5`);
    t.same((await ds('get', { namespace: 'edge-one', id: 'other' })).body, { value: null });
    t.same((await ds('get', UNITS)).body.value, { ...UNITS, temperature: 'degF' }, 'the stored document is unchanged');
    t.equal(app.units.prefs.temperature, 'degF');
    t.equal((await setting()).unit, 'degF');
    t.equal(
      (await ds('set', { value: { namespace: 'edge-two', id: 'units', temperature: 'fahrenheit' } })).status,
      200,
      "another service's document is not ours to check",
    );
    t.equal((await ds('set', { value: { ...UNITS } })).status, 200, 'no temperature: the default');
  },
);
