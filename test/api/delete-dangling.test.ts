import t from 'tap';
import { startApp } from '../helpers/app.js';

t.test('blocks/delete answers the ident and the links of other blocks that now point nowhere', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  await post('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 20 } });
  await post('blocks/create', {
    id: 'Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, storedSetting: 20, 'sensorId<>': 'Beer Sensor' },
  });
  await post('blocks/create', {
    id: 'Combi',
    type: 'TempSensorCombi',
    data: { sensors: [{ __objtype: 'Link', id: 'Beer Sensor' }] },
  });
  const created = (await post('blocks/read', { id: 'Beer Sensor' })).body;
  const res = await post('blocks/delete', { id: 'Beer Sensor' });
  t.equal(res.status, 200);
  t.match(
    res.body,
    { id: 'Beer Sensor', nid: created.nid, type: 'TempSensorMock', serviceId: 'edge-one' },
    'the fields the Brewblox UI reads are still there',
  );
  t.same(
    [...res.body.dangling].sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)),
    [
      { id: 'Beer Setpoint', field: 'sensorId' },
      { id: 'Combi', field: 'sensors.0' },
    ],
  );
  const lone = await post('blocks/delete', { id: 'Combi' });
  t.same(lone.body.dangling, [], 'nothing links to it: an empty list');
});
