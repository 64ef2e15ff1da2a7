// A patch (or write) without `type` was refused with "type: required" alone, leaving a client to
// guess what goes there; other refusals say how to send it. When the body names a block that
// exists, the refusal now gives the body to send: the same, with the block's own type. REST,
// MQTT and batches share this path (runtime updateOne).
import t from 'tap';
import { startApp } from '../helpers/app.js';

t.test('a patch or write without type: an example body with the block type', async (t) => {
  const a = await startApp({ hardware: 'sim' }, { listen: false });
  t.teardown(() => a.close());
  t.equal((await a.post('blocks/create', { id: 'Beer', type: 'TempSensorMock', data: {} })).status, 201);

  const example = '{"id":"Beer","type":"TempSensorMock","data":{"setting":21}}';
  for (const route of ['blocks/patch', 'blocks/write']) {
    const r = await a.post(route, { id: 'Beer', data: { setting: 21 } });
    t.equal(r.status, 422, route);
    t.equal(r.body.validation[0].path, 'type', `${route}: names the field`);
    t.equal(
      r.body.validation[0].message,
      `required: block 'Beer' is a TempSensorMock; send ${example}`,
      `${route}: the body to send, with the real type`,
    );
    t.match(r.body.message, example, `${route}: in the message too`);
    const again = await a.post(route, JSON.parse(example));
    t.equal(again.status, 200, `${route}: the example is taken`);
  }

  const byNid = await a.post('blocks/patch', { nid: 100, data: {} });
  t.equal(
    byNid.body.validation[0].message,
    'required: block \'Beer\' is a TempSensorMock; send {"nid":100,"type":"TempSensorMock","data":{}}',
    'by nid',
  );

  const batch = await a.post('blocks/batch/patch', [{ id: 'Beer', data: { setting: 20 } }]);
  t.equal(batch.status, 422);
  t.match(
    batch.body.validation[0],
    { path: '0.type', message: /TempSensorMock; send \{"id":"Beer","type":"TempSensorMock"/ },
    'in a batch',
  );

  const big = await a.post('blocks/patch', { id: 'Beer', data: { setting: 21, note: 'x'.repeat(300) } });
  t.equal(
    big.body.validation[0].message,
    'required: block \'Beer\' is a TempSensorMock; send {"id":"Beer","type":"TempSensorMock","data":{...}} (your data)',
    'a long body is not echoed',
  );

  const none = await a.post('blocks/patch', { id: 'Nobody', data: {} });
  t.equal(none.status, 422);
  t.same(none.body.validation, [{ path: 'type', message: 'required' }], 'no such block: no type to name');
});
