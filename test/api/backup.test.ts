import t from 'tap';
import { startApp } from '../helpers/app.js';

t.test('backup save -> all/delete -> load restores every block with ids, nids, links and meta', async (t) => {
  const { app, post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  await post('blocks/create', {
    id: 'Beer Sensor',
    type: 'TempSensorMock',
    data: { setting: 19.5, fluctuations: [{ amplitude: 0.2, period: 60 }] },
    meta: { color: 'blue' },
  });
  await post('blocks/create', {
    id: 'Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, storedSetting: 18, 'sensorId<>': 'Beer Sensor', filter: 'FILTER_45s' },
  });
  await post('blocks/create', { id: 'pins', type: 'MockPins', data: {} });
  await post('blocks/create', {
    id: 'Heater',
    type: 'DigitalActuator',
    data: { 'hwDevice<>': 'pins', channel: 1, invert: true },
  });
  const backup = (await post('blocks/backup/save')).body;
  t.match(backup.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.type(backup.version, 'string');
  t.ok(Array.isArray(backup.store));
  const systemBlocks = app.runtime.blocks().filter((b) => b.def.system).length;
  t.ok(systemBlocks >= 1);
  t.equal(backup.blocks.length, 4 + systemBlocks, 'system blocks included');
  t.same(Object.keys(backup.blocks.find((b: { id: string }) => b.id === 'Beer Sensor').data).sort(), [
    'connected',
    'fluctuations',
    'setting',
  ]);
  const stored = (await post('blocks/all/read/stored')).body;

  const removed = (await post('blocks/all/delete')).body;
  t.same(removed.map((i: { id: string }) => i.id).sort(), ['Beer Sensor', 'Beer Setpoint', 'Heater', 'pins']);
  await post('blocks/create', { id: 'extra', type: 'TempSensorMock', data: {} });

  const load = await post('blocks/backup/load', backup);
  t.equal(load.status, 200);
  t.same(load.body, { messages: [], failures: [], warnings: [] });
  const after = (await post('blocks/all/read/stored')).body;
  t.same(after, stored, 'stored data, ids, nids and meta are back exactly');
  t.notOk(
    after.some((b: { id: string }) => b.id === 'extra'),
    'load is not a merge',
  );
});

// A delete leaves the links that named the block (blocks/delete's `dangling`), and a restart keeps
// them; the controller's own backup then holds them. Loading it refused such a block, and since a
// load replaces every block, the block that had been there was gone.
t.test("a block whose link was left dangling by a delete survives its own backup's load", async (t) => {
  const { post, close } = await startApp();
  t.teardown(close);
  await post('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 20 } });
  await post('blocks/create', {
    id: 'Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, storedSetting: 18, 'sensorId<>': 'Beer Sensor' },
  });
  const deleted = (await post('blocks/delete', { id: 'Beer Sensor' })).body;
  t.same(deleted.dangling, [{ id: 'Beer Setpoint', field: 'sensorId' }]);
  const stored = (await post('blocks/all/read/stored')).body;
  const backup = (await post('blocks/backup/save')).body;

  const load = await post('blocks/backup/load', backup);
  t.equal(load.status, 200);
  t.same(load.body.failures, [], 'nothing failed');
  t.match(load.body.warnings, [/id 'Beer Setpoint'.*its link sensorId: block 'Beer Sensor' does not exist/]);
  t.same((await post('blocks/all/read/stored')).body, stored, 'every block back as it was, the link included');

  await post('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 21 } });
  let reading: unknown = null;
  for (let i = 0; i < 50 && reading === null; i++) {
    await new Promise((r) => setTimeout(r, 100));
    reading = (await post('blocks/read', { id: 'Beer Setpoint' })).body.data.valueUnfiltered.value;
  }
  t.equal(reading, 21, 'a block of that id created later is linked again');
});

t.test('forward links resolve and failing blocks are reported by name', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const backup = {
    blocks: [
      { id: 'sp', nid: 205, type: 'SetpointSensorPair', data: { 'sensorId<>': 'sensor-1', storedSetting: 20 } },
      { id: 'sensor-1', nid: 202, type: 'TempSensorMock', data: { setting: 21 } },
      { id: 'fantast', nid: 400, type: 'SetpointSensorPair', data: { 'sensorId<>': 'missing' } },
      { id: 'Groups', nid: 1, type: 'Groups', data: {} },
      { id: 'derpface', nid: 500, type: 'INVALID', data: {} },
    ],
  };
  const res = await post('blocks/backup/load', backup);
  t.equal(res.status, 200);
  t.equal(res.body.messages.length, 3);
  t.match(res.body.messages[0], /fantast.*loaded; its link sensorId: block 'missing' does not exist/);
  t.same(res.body.failures.length, 1, 'only derpface fails');
  t.match(res.body.messages[1], /Groups/);
  t.match(res.body.messages[2], /derpface.*INVALID/);
  const sp = (await post('blocks/read', { id: 'sp' })).body;
  t.equal(sp.nid, 205);
  t.equal(sp.data.sensorId.id, 'sensor-1', 'forward link resolved');
  t.equal((await post('blocks/read', { id: 'sensor-1' })).body.nid, 202, 'nid kept');
  const fantast = (await post('blocks/read', { id: 'fantast' })).body;
  t.equal(fantast.data.sensorId.id, 'missing', 'a link to no block is kept, as after a delete');
  t.equal((await post('blocks/read', { id: 'derpface' })).status, 404);
  const created = (await post('blocks/create', { id: 'new', type: 'TempSensorMock', data: {} })).body;
  t.ok(created.nid > 205, 'new nids stay above loaded ones');
});

t.test('backup includes and restores the controller datastore documents', async (t) => {
  const { app, post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  app.documents.setMany([
    { namespace: 'edge-one', id: 'units', temperature: 'degF' },
    { namespace: 'edge-one:ui', id: 'layout', cols: 3 },
    { namespace: 'other', id: 'x' },
  ]);
  const backup = (await post('blocks/backup/save')).body;
  t.same(backup.store.map((d: { id: string }) => d.id).sort(), ['layout', 'units'], 'only the controller namespace');
  app.documents.setMany([
    { namespace: 'edge-one', id: 'units', temperature: 'degC' },
    { namespace: 'edge-one', id: 'stray' },
  ]);
  await post('blocks/backup/load', backup);
  t.equal(app.documents.get('edge-one', 'units')!.temperature, 'degF');
  t.equal(app.documents.get('edge-one', 'stray'), null, 'replaced, not merged');
  t.ok(app.documents.get('other', 'x'), 'other namespaces untouched');
  t.equal(app.units.prefs.temperature, 'degF', 'the loaded units document takes effect');
});

t.test('a backup with nothing loadable is refused and changes nothing; rejected documents are reported', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  await post('blocks/create', { id: 'keep', type: 'TempSensorMock', data: {} });
  const garbage = await post('blocks/backup/load', { blocks: [1, 'x', null] });
  t.equal(garbage.status, 422);
  t.match(garbage.body.message, /nothing was changed/);
  t.equal((await post('blocks/read', { id: 'keep' })).status, 200, 'blocks kept');
  const { blocks } = (await post('blocks/backup/save')).body;
  const docs = await post('blocks/backup/load', {
    blocks,
    store: [1, { namespace: 'edge-one' }, { namespace: 'edge-one', id: 'ok', v: 1 }],
  });
  t.equal(docs.status, 200);
  t.equal(docs.body.messages.length, 2, 'one message per document left out');
  t.match(docs.body.messages[0], /document left out/);
});

t.test('nid and meta bounds', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const big = await post('blocks/create', { id: 'x', nid: 9007199254740991, type: 'TempSensorMock', data: {} });
  t.equal(big.status, 422);
  t.match(big.body.validation, [{ path: 'nid' }]);
  let meta: Record<string, unknown> = {};
  for (let i = 0; i < 100; i++) meta = { m: meta };
  // Nested past the one JSON depth limit: refused as the body is read, before any schema.
  const deep = await post('blocks/create', { id: 'x', type: 'TempSensorMock', data: {}, meta });
  t.equal(deep.status, 400);
  t.match(deep.body.message, /more than 64 levels deep/);
  const large = await post('blocks/create', {
    id: 'x',
    type: 'TempSensorMock',
    data: {},
    meta: { m: 'x'.repeat(20000) },
  });
  t.equal(large.status, 422);
  t.match(large.body.validation, [{ path: 'meta' }]);
  t.equal(
    (await post('blocks/create', { id: 'x', type: 'TempSensorMock', data: {} })).status,
    201,
    'creates still work afterwards',
  );
});

t.test('a backup with an empty blocks list is refused and deletes nothing', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  await post('blocks/create', { id: 'Kept', type: 'TempSensorMock', data: { setting: 20 } });
  const before = (await post('blocks/all/read/stored')).body;
  const res = await post('blocks/backup/load', { blocks: [] });
  t.equal(res.status, 422, JSON.stringify(res.body));
  t.match(JSON.stringify(res.body), /holds no block/);
  t.match(JSON.stringify(res.body), /blocks\/all\/delete/, 'the refusal says how to delete everything on purpose');
  t.same((await post('blocks/all/read/stored')).body, before, 'every block is still there');
  const res2 = await post('blocks/backup/load', { blocks: [], store: [] });
  t.equal(res2.status, 422, 'with an empty store too');
});

t.test(
  'a backup block is held to the rules a create of it meets: an address its chip can have; two blocks on one IO module or chip both load, told',
  async (t) => {
    const { post, close } = await startApp({}, { listen: false });
    t.teardown(close);
    t.equal(
      (await post('blocks/create', { id: 'relays', type: 'DS2408', data: { address: '2901d0000000004a' } })).status,
      201,
    );
    t.equal(
      (await post('blocks/create', { id: 'board', type: 'MCP23017', data: { bus: 'sim', address: 0x20 } })).status,
      201,
    );
    const twin = await post('blocks/create', { id: 'x', type: 'DS2408', data: { address: '2901d0000000004a' } });
    t.equal(twin.status, 422, 'blocks/create refuses a second block on the module');
    t.match(twin.body.message, "1-Wire module 2901d0000000004a is already used by block 'relays'");
    const backup = (await post('blocks/backup/save')).body;
    const relays = backup.blocks.find((b: { id: string }) => b.id === 'relays');
    const board = backup.blocks.find((b: { id: string }) => b.id === 'board');
    const pcf = { id: 'expander', nid: 901, type: 'PCF8574', data: { address: 0x10, activeLow: true } };
    const created = await post('blocks/create', pcf);
    t.equal(created.status, 422, 'blocks/create refuses an address a PCF8574 cannot have');
    backup.blocks.push({ ...relays, id: 'relays again', nid: 900 }, pcf, { ...board, id: 'board again', nid: 902 });
    const load = await post('blocks/backup/load', backup);
    t.equal(load.status, 200);
    t.same(load.body.failures, [], 'no block is lost');
    t.same(
      load.body.warnings,
      [
        "block 4 (id 'relays again', nid 900, type 'DS2408'): 1-Wire module 2901d0000000004a is named by block 'relays' too; both are loaded on it, as the backup has them (a block deleted or moved away lets go of it only when no other names it)",
        `block 5 (id 'expander', nid 901, type 'PCF8574'): field 'address' dropped (${created.body.validation[0].message})`,
        "block 6 (id 'board again', nid 902, type 'MCP23017'): I2C chip 0x20 on bus sim is named by block 'board' too; both are loaded on it, as the backup has them (a block deleted or moved away lets go of it only when no other names it)",
      ],
      'the pairs on one chip load as they are, told; the expander loads without its address, told in the words blocks/create has',
    );
    const read = async (id: string) => (await post('blocks/read', { id })).body.data;
    t.equal((await read('relays')).address, '2901d0000000004a', 'the first block on the module keeps it');
    t.equal((await read('relays again')).address, '2901d0000000004a', 'and so does the second, as I2C pairs do');
    t.equal((await read('board again')).address, 0x20);
    const expander = await read('expander');
    t.equal(expander.address, null, 'the expander is unbound');
    t.equal(expander.activeLow, true, 'and keeps its settings');
  },
);

t.test(
  'a number too large for JSON to hold (1E400) in meta or a backup document is refused by name, not kept as null',
  async (t) => {
    const { post, close } = await startApp({}, { listen: false });
    t.teardown(close);
    const create = await post(
      'blocks/create',
      undefined,
      '{"id":"s","type":"TempSensorMock","data":{},"meta":{"pos":{"x":1E400}}}',
    );
    t.equal(create.status, 422);
    t.match(create.body.validation, [{ path: 'meta.pos.x', message: /too large/ }]);
    t.equal((await post('blocks/read', { id: 's' })).status, 404, 'not created');
    const { blocks } = (await post('blocks/backup/save')).body;
    const text = JSON.stringify({ blocks, store: [{ namespace: 'edge-one', id: 'ok', v: 1 }] }).replace(
      /\]\}$/,
      ',{"namespace":"edge-one","id":"huge","v":1E400}]}',
    );
    const load = await post('blocks/backup/load', undefined, text);
    t.equal(load.status, 200);
    t.match(load.body.failures, [/store\.1\.v: .*too large/]);
    t.same(
      (await post('blocks/backup/save')).body.store,
      [{ namespace: 'edge-one', id: 'ok', v: 1 }],
      'left out, not stored as null',
    );
  },
);
