// 24.4: temperatures below absolute zero are always refused, and setpoints have a declared
// range (SETPOINT_RANGE_C in the field table) that REST and Swagger share, named in the user's unit.
import t from 'tap';
import { takesValue } from '../../src/codec/decode.js';
import { f, SETPOINT_RANGE_C, type FieldSpec } from '../../src/codec/fields.js';
import { startApp } from '../helpers/app.js';

const pair = (storedSetting: unknown) => ({
  id: 'Beer Setpoint',
  type: 'SetpointSensorPair',
  data: { enabled: true, storedSetting },
});

t.test(
  'setpoints outside the range and temperatures below absolute zero: 422 naming field, range and unit',
  async (t) => {
    const { app, post, close } = await startApp({}, { listen: false });
    t.teardown(close);
    t.equal((await post('blocks/create', pair(20))).status, 201);
    for (const bad of [-300, 2000, 200]) {
      const res = await post('blocks/patch', pair(bad));
      t.equal(res.status, 422, `${bad} °C refused`);
      t.match(
        res.body.message,
        `data.storedSetting: must be between ${SETPOINT_RANGE_C.min} °C and ${SETPOINT_RANGE_C.max} °C, got ${bad} °C`,
      );
    }
    t.equal((await post('blocks/read', { id: 'Beer Setpoint' })).body.data.storedSetting.value, 20, 'nothing stored');
    for (const ok of [100, 121, -5, 65])
      t.equal((await post('blocks/patch', pair(ok))).status, 200, `${ok} °C (boil, steam, crash, mash) accepted`);

    const cold = await post('blocks/create', { id: 'Mock', type: 'TempSensorMock', data: { setting: -300 } });
    t.equal(cold.status, 422);
    t.match(cold.body.message, 'data.setting: must not be below absolute zero (-273.15 °C), got -300 °C');
    t.equal(
      (await post('blocks/create', { id: 'Thermocouple', type: 'TempSensorMock', data: { setting: 900 } })).status,
      201,
      'a reading is not bound by the setpoint range',
    );

    app.documents.setMany([{ namespace: 'edge-one', id: 'units', temperature: 'degF' }]);
    const f = await post('blocks/patch', pair(500));
    t.equal(f.status, 422);
    t.match(f.body.message, 'must be between -40 °F and 302 °F, got 500 °F', "in the user's unit");
    const q = await post('blocks/patch', pair({ __objtype: 'Quantity', value: -300, unit: 'degC' }));
    t.match(q.body.message, 'must be between -40 °F and 302 °F, got -300 degC');
    const abs = await post('blocks/create', { id: 'Mock2', type: 'TempSensorMock', data: { setting: -500 } });
    t.match(abs.body.message, 'must not be below absolute zero (-459.67 °F), got -500 °F');
  },
);

t.test('Swagger shows the range as minimum and maximum', async (t) => {
  const { app, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const doc = JSON.parse((await app.http.inject({ method: 'GET', url: '/edge-one/api/doc/json' })).body);
  const text = JSON.stringify(doc);
  const schema =
    /"SetpointSensorPair[^"]*":\{.*?"storedSetting":(\{.*?\}\]\})/.exec(text)?.[1] ??
    text.slice(text.indexOf('"storedSetting"'), text.indexOf('"storedSetting"') + 800);
  t.match(schema, `"minimum":${SETPOINT_RANGE_C.min}`, schema);
  t.match(schema, `"maximum":${SETPOINT_RANGE_C.max}`);
});

t.test('takesValue: the rule decoding holds every number to, for values that do not come through it', async (t) => {
  const setpoint = f.setpointTemp().spec as Extract<FieldSpec, { kind: 'quantity' }>;
  t.ok(takesValue(setpoint, 20));
  t.ok(takesValue(setpoint, SETPOINT_RANGE_C.max), 'the bounds are in');
  t.notOk(takesValue(setpoint, SETPOINT_RANGE_C.max + 0.01), 'above the range');
  t.notOk(takesValue(setpoint, Number.NaN), 'NaN (both comparisons are false)');
  t.notOk(takesValue(setpoint, Number.POSITIVE_INFINITY));
  const whole = f.number({ integer: true, min: 0 }).spec as Extract<FieldSpec, { kind: 'number' }>;
  t.notOk(takesValue(whole, 1.5), 'not whole');
  t.notOk(takesValue(f.number().spec as Extract<FieldSpec, { kind: 'number' }>, 2e9), 'past MAX_MAGNITUDE');
});

t.test('a huge number in a field with a declared range is told that range, not the bound of all numbers', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  t.equal((await post('blocks/create', pair(20))).status, 201);
  // 2^53 + 1 reads as 2^53; 1e300 is far past MAX_MAGNITUDE. Both are past the field's own range,
  // which is what the user can act on ("is out of range" and "between -1e9 and 1e9" said neither).
  const setpoint = await post('blocks/patch', pair(1e300));
  t.equal(setpoint.status, 422);
  t.match(setpoint.body.message, 'data.storedSetting: must be between -40 °C and 150 °C, got 1e+300 °C');
  const channel = await post(
    'blocks/create',
    undefined,
    '{"id":"Relay","type":"DigitalActuator","data":{"channel":9007199254740993}}',
  );
  t.equal(channel.status, 422);
  t.match(channel.body.message, 'data.channel: must be at most 64, got 9007199254740993');
  const below = await post(
    'blocks/create',
    undefined,
    '{"id":"Relay","type":"DigitalActuator","data":{"channel":-1e12}}',
  );
  t.match(below.body.message, 'data.channel: must be at least 0, got -1000000000000');
});
