import t from 'tap';
import { startApp } from '../helpers/app.js';

const sensor = { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 20 } };

t.test('bad input gets the documented status, names the problem, and changes nothing', async (t) => {
  const { app, post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  t.equal((await post('blocks/create', sensor)).status, 201);
  await post('blocks/create', { id: 'pins', type: 'MockPins', data: {} });
  await post('blocks/create', { id: 'relays', type: 'DS2408', data: { address: '2901d0000000004a' } });
  const snapshot = async () => (await post('blocks/all/read')).body;
  const before = await snapshot();

  const cases: Array<[string, string, unknown, number, RegExp, string?]> = [
    ['a body that is not JSON', 'blocks/create', '{"id": ', 400, /not valid JSON/],
    ['a body that is not an object', 'blocks/create', '[1,2]', 400, /JSON object/],
    ['missing type', 'blocks/create', { id: 'x', data: {} }, 422, /type/, 'type'],
    ['missing data', 'blocks/create', { id: 'x', type: 'TempSensorMock' }, 422, /data/, 'data'],
    [
      'an unknown block type',
      'blocks/create',
      { id: 'x', type: 'dummy', data: {} },
      422,
      /unknown block type 'dummy'/,
      'type',
    ],
    [
      'an unknown field',
      'blocks/create',
      { id: 'x', type: 'TempSensorMock', data: { invalid: true } },
      422,
      /unknown field 'invalid'/,
      'data.invalid',
    ],
    [
      'a value of the wrong type',
      'blocks/create',
      { id: 'x', type: 'TempSensorMock', data: { setting: 'warm' } },
      422,
      /data.setting/,
      'data.setting',
    ],
    [
      'an unknown unit',
      'blocks/create',
      { id: 'x', type: 'TempSensorMock', data: { 'setting[kelvin]': 290 } },
      422,
      /unknown unit 'kelvin'/,
      'data.setting',
    ],
    [
      // A brewer's way of writing a temperature: the message says how the API takes it.
      'a temperature as text with its unit',
      'blocks/create',
      { id: 'x', type: 'TempSensorMock', data: { setting: '20 C' } },
      422,
      /got the string "20 C"; put the unit in the key, "setting\[degC\]": 20, or send \{"value": 20, "unit": "degC"\}/,
      'data.setting',
    ],
    [
      'a temperature as text in the other unit',
      'blocks/create',
      { id: 'x', type: 'TempSensorMock', data: { setting: '68F' } },
      422,
      /"setting\[degF\]": 68, or send \{"value": 68, "unit": "degF"\}/,
      'data.setting',
    ],
    [
      'a temperature as text with a unit of another kind',
      'blocks/create',
      { id: 'x', type: 'TempSensorMock', data: { setting: '20 min' } },
      422,
      /got the string "20 min"; unit 'min' is not a temperature unit/,
      'data.setting',
    ],
    [
      // The range of a temperature difference in degrees, as every message writes a temperature.
      'a temperature difference out of its range',
      'blocks/create',
      { id: 'x', type: 'Pid', data: { tuning: { amplitude: 99 } } },
      422,
      /data.tuning.amplitude: must be between 0.05 °C and 10 °C, got 99 °C$/,
      'data.tuning.amplitude',
    ],
    [
      'a link to a missing block',
      'blocks/create',
      { id: 'x', type: 'SetpointSensorPair', data: { 'sensorId<>': 'Santa' } },
      422,
      /'Santa' does not exist/,
      'data.sensorId',
    ],
    [
      'a link to a block of the wrong interface',
      'blocks/create',
      { id: 'x', type: 'SetpointSensorPair', data: { 'sensorId<>': 'pins' } },
      422,
      /'pins' is a MockPins, which is not a TempSensorInterface/,
      'data.sensorId',
    ],
    ['create with an id in use', 'blocks/create', sensor, 409, /'Beer Sensor' is already in use/],
    [
      'create with a nid in use',
      'blocks/create',
      { ...sensor, id: 'other', nid: 100 },
      409,
      /nid 100 is already in use/,
    ],
    [
      'create with a system nid',
      'blocks/create',
      { ...sensor, id: 'other', nid: 5 },
      422,
      /reserved for system blocks/,
      'nid',
    ],
    ['delete of SysInfo', 'blocks/delete', { id: 'SysInfo' }, 409, /system block/],
    [
      'a write that changes the type',
      'blocks/write',
      { id: 'Beer Sensor', type: 'TempSensorExternal', data: {} },
      409,
      /cannot change it to 'TempSensorExternal'/,
    ],
    [
      'a patch that changes the type',
      'blocks/patch',
      { id: 'Beer Sensor', type: 'TempSensorExternal', data: {} },
      409,
      /TempSensorMock/,
    ],
    ['an unknown id', 'blocks/read', { id: 'flappy' }, 404, /flappy/],
    ['an unknown nid', 'blocks/read/stored', { nid: 9999 }, 404, /9999/],
    ['no identity', 'blocks/read', {}, 422, /id or nid/, 'id'],
    ['meta that is not an object', 'blocks/write', { ...sensor, meta: 'x' }, 422, /meta/, 'meta'],
    [
      'a field named like an Object method',
      'blocks/create',
      { id: 'x', type: 'TempSensorMock', data: { toString: 1 } },
      422,
      /unknown field 'toString'/,
      'data.toString',
    ],
    [
      'a constructor field',
      'blocks/create',
      { id: 'x', type: 'TempSensorMock', data: { constructor: {} } },
      422,
      /unknown field 'constructor'/,
      'data.constructor',
    ],
    [
      'an enum value named like an Object method',
      'blocks/create',
      { id: 'x', type: 'SetpointSensorPair', data: { filter: 'toString' } },
      422,
      /FILTER_NONE/,
      'data.filter',
    ],
    [
      'a unit named like an Object method',
      'blocks/create',
      { id: 'x', type: 'TempSensorMock', data: { 'setting[constructor]': 1 } },
      422,
      /unknown unit 'constructor'/,
      'data.setting',
    ],
    [
      'a __proto__ key',
      'blocks/create',
      '{"id":"x","type":"TempSensorMock","data":{"__proto__":{"setting":1}}}',
      400,
      /__proto__/,
    ],
    [
      'a __proto__ key spelled with escapes',
      'blocks/create',
      '{"id":"x","type":"TempSensorMock","data":{"\\u005f_proto\\u005f_":{"setting":1}}}',
      400,
      /__proto__/,
    ],
    [
      'a hardware address another block holds',
      'blocks/create',
      { id: 'x', type: 'DS2408', data: { address: '2901d0000000004a' } },
      422,
      /already used by block 'relays'/,
      'data.address',
    ],
    [
      'a list item that is not an object (a profile point given as a number)',
      'blocks/create',
      { id: 'x', type: 'SetpointProfile', data: { points: [5] } },
      422,
      /data.points.0: must be an object, got number 5/,
      'data.points.0',
    ],
    [
      "a profile point time beyond any date (not an older backup's epoch time)",
      'blocks/create',
      { id: 'x', type: 'SetpointProfile', data: { points: [{ time: 2 ** 53 }] } },
      422,
      /data.points.0.time/,
      'data.points.0.time',
    ],
    ['a backup without blocks', 'blocks/backup/load', { timestamp: 'x' }, 422, /blocks/, 'blocks'],
  ];
  for (const [what, url, body, status, message, path] of cases) {
    const res = typeof body === 'string' ? await post(url, undefined, body) : await post(url, body);
    t.equal(res.status, status, `${what}: status`);
    t.equal(res.body.statusCode, status, `${what}: envelope statusCode`);
    t.type(res.body.error, 'string', `${what}: reason phrase`);
    t.match(res.body.message, message, `${what}: message names the problem`);
    if (status === 422)
      t.ok(
        res.body.validation.some((v: { path: string }) => v.path === path),
        `${what}: validation path ${path}`,
      );
  }
  const big = JSON.stringify({ ...sensor, id: 'big', meta: { blob: 'x'.repeat(1024 * 1024) } });
  const tooBig = await post('blocks/create', undefined, big);
  t.equal(tooBig.status, 413, 'a body over 1 MiB');
  t.equal(tooBig.body.statusCode, 413);
  const unknownRoute = await post('blocks/nonexistent', {});
  t.equal(unknownRoute.status, 404);
  const after = await snapshot();
  t.same(
    after.map((b: { id: string; data: unknown }) => [b.id, b.id === 'SysInfo' ? null : b.data]),
    before.map((b: { id: string; data: unknown }) => [b.id, b.id === 'SysInfo' ? null : b.data]),
    'nothing changed',
  );
  t.equal(
    app.runtime.blocks().filter((b) => !b.def.system).length,
    3,
    'only the three user blocks created at the start',
  );
});

t.test('100 concurrent requests of any mix are safe', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  await post('blocks/create', sensor);
  const ops = Array.from({ length: 100 }, (_, i) => {
    switch (i % 5) {
      case 0:
        return post('blocks/create', { id: `s${i}`, type: 'TempSensorMock', data: { setting: i } });
      case 1:
        return post('blocks/read', { id: 'Beer Sensor' });
      case 2:
        return post('blocks/patch', { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: i } });
      case 3:
        return post('blocks/all/read');
      default:
        return post('blocks/create', { id: 'dup', type: 'TempSensorMock', data: {} });
    }
  });
  const results = await Promise.all(ops);
  t.equal(results.filter((r) => r.status >= 500).length, 0, 'no 500');
  t.equal(
    results.filter((r, i) => i % 5 === 4 && r.status === 201).length,
    1,
    'exactly one of the racing duplicate creates wins',
  );
  const all = (await post('blocks/all/read')).body as { id: string; nid: number }[];
  for (let i = 0; i < 100; i += 5)
    t.ok(
      all.some((b) => b.id === `s${i}`),
      `s${i} exists`,
    );
  t.equal(new Set(all.map((b) => b.nid)).size, all.length, 'nids are unique');
});

t.test('Swagger UI and the generated OpenAPI document', async (t) => {
  const { app, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const ui = await app.http.inject({ method: 'GET', url: '/edge-one/api/doc/' });
  t.equal(ui.statusCode, 200);
  t.match(ui.body, /swagger/i);
  const spec = JSON.parse((await app.http.inject({ method: 'GET', url: '/edge-one/api/doc/json' })).body);
  t.ok(spec.paths['/edge-one/blocks/create'], 'create documented');
  t.ok(spec.paths['/edge-one/system/status'], 'status documented');
  const schema = JSON.stringify(spec.paths['/edge-one/blocks/create'].post.requestBody);
  for (const type of app.runtime.types.keys()) t.match(schema, type, `${type} schema generated from its field table`);
  t.match(schema, 'filterThreshold', 'fields of SetpointSensorPair appear');
});

t.test('ping and status', async (t) => {
  const { app, post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const get = await app.http.inject({ method: 'GET', url: '/edge-one/system/ping' });
  t.same(JSON.parse(get.body), { ping: 'pong' });
  t.same((await post('system/ping')).body, { ping: 'pong' });
  const status = JSON.parse((await app.http.inject({ method: 'GET', url: '/edge-one/system/status' })).body);
  t.equal(status.serviceId, 'edge-one');
  t.same(status.quarantined, []);
});
