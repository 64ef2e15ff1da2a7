// A number JSON text cannot hold (1E400, which JSON.parse reads as Infinity) is refused in the
// same words wherever it is sent: a block field (a plain number, a quantity bare, postfixed or as
// a Quantity), block meta, a datastore document, an alert rule. Each refusal names the field and
// says the number is too large; none quotes it as "Infinity" or "null" (what it becomes).
import t from 'tap';
import { startApp } from '../helpers/app.js';

const WORDING = 'is a number too large for JSON to hold (a double holds at most ±1.7976931348623157e308)';

t.test('1E400 is refused in one wording, naming the field, wherever it is sent', async (t) => {
  const { app, post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const send = async (method: 'POST' | 'PUT', url: string, payload: string) => {
    const res = await app.http.inject({
      method,
      url: `/${app.config.serviceId}/${url}`,
      headers: { 'content-type': 'application/json' },
      payload,
    });
    return { status: res.statusCode, body: JSON.parse(res.body) };
  };
  t.equal((await post('blocks/create', { id: 'Probe', type: 'TempSensorMock', data: {} })).status, 201);
  const cases: Array<[string, 'POST' | 'PUT', string, string, string]> = [
    [
      'a plain number field',
      'POST',
      'blocks/create',
      '{"id":"a","type":"ActuatorAnalogMock","data":{"minSetting":1E400}}',
      'data.minSetting',
    ],
    [
      'a quantity sent bare',
      'POST',
      'blocks/write',
      '{"id":"Probe","type":"TempSensorMock","data":{"setting":-1E400}}',
      'data.setting',
    ],
    [
      'a quantity with its unit in the key',
      'POST',
      'blocks/write',
      '{"id":"Probe","type":"TempSensorMock","data":{"setting[degF]":1E400}}',
      'data.setting',
    ],
    [
      'a Quantity object',
      'POST',
      'blocks/write',
      '{"id":"Probe","type":"TempSensorMock","data":{"setting":{"__bloxtype":"Quantity","value":1E400,"unit":"degC"}}}',
      'data.setting',
    ],
    [
      'block meta',
      'POST',
      'blocks/write',
      '{"id":"Probe","type":"TempSensorMock","data":{},"meta":{"x":1E400}}',
      'meta.x',
    ],
    [
      'a datastore document',
      'POST',
      'history/datastore/set',
      '{"value":{"namespace":"n","id":"x","v":1E400}}',
      'value.v',
    ],
    ['an alert rule', 'PUT', 'alerts/rules', '{"sensorNull":{"after":1E400}}', 'sensorNull.after'],
    ['the nid of a read', 'POST', 'blocks/read', '{"nid":1E400}', 'nid'],
    ['the id of a read', 'POST', 'blocks/read', '{"id":-1E400}', 'id'],
    ['the serviceId of a write', 'POST', 'blocks/write', '{"id":"Probe","serviceId":1E400,"data":{}}', 'serviceId'],
    ['a history query', 'POST', 'history/timeseries/ranges', '{"fields":["a"],"start":1E400}', 'start'],
  ];
  for (const [what, method, url, payload, path] of cases) {
    const res = url.startsWith('history/')
      ? await post(`/${url}`, undefined, payload)
      : await send(method, url, payload);
    t.equal(res.status, 422, `${what}: refused`);
    const body = res.body as { message: string; validation: Array<{ path: string; message: string }> };
    const issue = body.validation.find((v) => v.path === path);
    t.ok(issue, `${what}: the refusal names ${path} (got ${JSON.stringify(body.validation)})`);
    t.equal(issue?.message.slice(0, WORDING.length), WORDING, `${what}: in the one wording`);
    t.notMatch(body.message, /Infinity|got null|got number/, `${what}: the number is not quoted as what it became`);
    t.ok(body.message.includes(path) && body.message.includes(WORDING), `${what}: the message names the field`);
  }
});

t.test('inside a value of another kind (a link id), such a number is named in the same words', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const res = await post(
    'blocks/create',
    undefined,
    '{"id":"x","type":"SetpointSensorPair","data":{"sensorId":{"__bloxtype":"Link","id":1E400}}}',
  );
  t.equal(res.status, 422);
  const body = res.body as { message: string };
  t.match(body.message, 'data.sensorId: link id must be a block id string, got a number too large for JSON to hold');
  t.notMatch(body.message, /Infinity/);
});
