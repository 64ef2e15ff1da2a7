// A backup's links are checked against the ids of the backup before any block is decoded (so
// forward links resolve), but a block that then failed (Brewblox's "Beer Sensor " with a trailing
// space where the backup has a "Beer Sensor" too, or the second of two blocks with one id) stayed
// among them: a link to it loaded pointing nowhere, or at a block of another type, without a
// word, while a link to an id the backup lacks is warned of. Both are warned of now, by block
// and field, as the links a delete leaves are.
import t from 'tap';
import { startApp } from '../helpers/app.js';

t.test('a link to a block of the backup that failed to load is warned of by block and field', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const backup = {
    blocks: [
      { id: 'Beer Sensor ', nid: 150, type: 'TempSensorMock', data: { setting: 20 } },
      { id: 'Beer Sensor', nid: 155, type: 'Variables', data: {} },
      { id: 'Beer Setpoint', nid: 151, type: 'SetpointSensorPair', data: { 'sensorId<>': 'Beer Sensor ' } },
      { id: 'Fridge Sensor', nid: 152, type: 'Variables', data: {} },
      { id: 'Fridge Sensor', nid: 153, type: 'TempSensorMock', data: { setting: 4 } },
      { id: 'Fridge Setpoint', nid: 154, type: 'SetpointSensorPair', data: { 'sensorId<>': 'Fridge Sensor' } },
    ],
  };
  const load = await post('blocks/backup/load', backup);
  t.equal(load.status, 200, load.raw.slice(0, 300));
  t.equal(load.body.failures.length, 2, 'the two failing blocks');
  t.match(load.body.failures, [/id 'Beer Sensor '/, /nid 153.*appears twice/]);
  const warned = (id: string, target: string) =>
    load.body.warnings.some(
      (w: string) => w.includes(`id '${id}'`) && w.includes('sensorId') && w.includes(`'${target}'`),
    );
  t.ok(warned('Beer Setpoint', 'Beer Sensor '), `the link to the failed block: ${load.body.warnings}`);
  t.ok(warned('Fridge Setpoint', 'Fridge Sensor'), `the link to a block of another type: ${load.body.warnings}`);
  t.same(load.body.messages.length, load.body.failures.length + load.body.warnings.length);
  // Both kept, pointing where the backup has them, as a delete leaves links.
  const read = async (id: string) => (await post('blocks/read', { id })).body.data.sensorId.id;
  t.equal(await read('Beer Setpoint'), 'Beer Sensor ');
  t.equal(await read('Fridge Setpoint'), 'Fridge Sensor');
});
