import t, { type Test } from 'tap';
import { startApp } from '../helpers/app.js';

/** An app with a sensor and a setpoint pair linked to it; returns its `post`. */
async function sensorAndSetpoint(t: Test) {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  await post('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 20 } });
  await post('blocks/create', {
    id: 'Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, storedSetting: 20, 'sensorId<>': 'Beer Sensor' },
  });
  return post;
}

t.test('blocks/delete answers the ident and the links of other blocks that now point nowhere', async (t) => {
  const post = await sensorAndSetpoint(t);
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

// A Sequence names its targets in the text of its instructions, not in link fields: a delete of a
// target leaves those lines naming nothing (the sequence stops there at INVALID_TARGET), so they
// are dangling too, by the same rule a rename rewrites them with.
t.test('blocks/delete lists the Sequence instruction lines that named the deleted block', async (t) => {
  const post = await sensorAndSetpoint(t);
  const made = await post('blocks/create', {
    id: 'Mash',
    type: 'Sequence',
    data: {
      enabled: true,
      instructions: [
        '# Beer Setpoint to mash',
        "SET_SETPOINT target='Beer Setpoint', setting=20C",
        'WAIT_DURATION duration=1h',
        "WAIT_SETPOINT target='Beer Setpoint', precision=1dC",
        "WAIT_TEMP_ABOVE target='Beer Sensor', value=19C",
      ],
    },
  });
  t.equal(made.status, 201, JSON.stringify(made.body));
  const res = await post('blocks/delete', { id: 'Beer Setpoint' });
  t.equal(res.status, 200);
  t.same(
    res.body.dangling,
    [
      { id: 'Mash', field: 'instructions.1' },
      { id: 'Mash', field: 'instructions.3' },
    ],
    'the lines naming it, not the comment that mentions it, nor the line naming another block',
  );
  const sensor = await post('blocks/delete', { id: 'Beer Sensor' });
  t.same(sensor.body.dangling, [{ id: 'Mash', field: 'instructions.4' }], 'the sensor: its one line');
});
