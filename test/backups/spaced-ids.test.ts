// The Brewblox UI takes a block id with a space at an end ("Fridge Sensor "), and its Spark
// service keeps it, so a Spark backup can hold one. This controller's ids have none: such a block
// loads under the id without the spaces, every link and Sequence line of the backup that named it
// follows (the rule of a rename), and a warning names both ids. Where the id without the spaces is
// another block's, the block is not loaded, as before, and the failure says why. A live create or
// rename with such an id stays refused, the message naming the space.
import t from 'tap';
import { startApp } from '../helpers/app.js';

const qty = (value: number, unit = 'degC') => ({ __bloxtype: 'Quantity', unit, value });
const link = (id: string, type: string) => ({ __bloxtype: 'Link', id, type });

/** As the Brewblox Spark service saves it (make_backup): stored blocks, its block-name store, name, firmware, device. */
function sparkBackup(blocks: Array<{ id: string; nid: number; type: string; data: Record<string, unknown> }>) {
  return {
    name: 'autosave_blocks_spark-one_2026-11-30',
    timestamp: '2026-11-30T09:00:00Z',
    firmware: { firmware_version: 'f27f141c', proto_version: '5f3b4ec5', firmware_date: '2023-03-06' },
    device: { device_id: '123456789012345678901234' },
    blocks: blocks.map((b) => ({ ...b, serviceId: 'spark-one' })),
    store: blocks.map((b) => ({ keys: [b.id, b.nid], data: {} })),
  };
}

t.test('a block whose id has a space at an end loads without it, and what named it follows', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const backup = sparkBackup([
    { id: 'Fridge Sensor ', nid: 101, type: 'TempSensorMock', data: { setting: qty(4), connected: true } },
    {
      id: 'Fridge Setpoint',
      nid: 102,
      type: 'SetpointSensorPair',
      data: { sensorId: link('Fridge Sensor ', 'TempSensorInterface'), storedSetting: qty(4), enabled: true },
    },
    {
      id: ' Cold Crash',
      nid: 103,
      type: 'Sequence',
      data: {
        enabled: false,
        instructions: [
          "WAIT_TEMP_BELOW target='Fridge Sensor ', value=5C",
          'SET_SETPOINT target=Fridge Setpoint, setting=1C',
          "START_SEQUENCE target=' Cold Crash'",
        ],
      },
    },
  ]);
  const load = await post('blocks/backup/load', backup);
  t.equal(load.status, 200, load.raw.slice(0, 400));
  t.same(load.body.failures, [], 'no block failed');
  for (const [from, to] of [
    ['Fridge Sensor ', 'Fridge Sensor'],
    [' Cold Crash', 'Cold Crash'],
  ])
    t.ok(
      load.body.warnings.some((w: string) => w.includes(`'${from}'`) && w.includes(`'${to}'`) && /space/.test(w)),
      `a warning names '${from}' and '${to}': ${load.body.warnings.join(' | ')}`,
    );
  const read = async (id: string) => (await post('blocks/read', { id })).body;
  t.equal((await read('Fridge Sensor')).nid, 101, 'the sensor loaded under the trimmed id, with its nid');
  t.equal((await read('Fridge Setpoint')).data.sensorId.id, 'Fridge Sensor', 'the link follows');
  const seq = await read('Cold Crash');
  t.equal(seq.nid, 103);
  t.match(seq.data.instructions[0], /^WAIT_TEMP_BELOW target=Fridge Sensor, /, 'the line naming the sensor follows');
  t.match(seq.data.instructions[2], /^START_SEQUENCE target=Cold Crash$/, 'so does one naming the sequence itself');
  t.equal(seq.data.error, 'NONE', seq.data.errorMessage);
  const deleted = (await post('blocks/delete', { id: 'Fridge Sensor' })).body;
  t.same(
    deleted.dangling,
    [
      { id: 'Fridge Setpoint', field: 'sensorId' },
      { id: 'Cold Crash', field: 'instructions.0' },
    ],
    'they name the block as it is now',
  );
});

t.test('where the id without its spaces is another block of the backup, it is not loaded, saying why', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const load = await post(
    'blocks/backup/load',
    sparkBackup([
      { id: 'Beer Sensor ', nid: 150, type: 'TempSensorMock', data: { setting: qty(20) } },
      { id: 'Beer Sensor', nid: 151, type: 'TempSensorMock', data: { setting: qty(18) } },
    ]),
  );
  t.equal(load.status, 200, load.raw.slice(0, 400));
  t.equal(load.body.failures.length, 1, load.body.failures.join(' | '));
  t.match(load.body.failures[0], /id 'Beer Sensor '.*space.*'Beer Sensor'.*nid 151/);
  t.equal((await post('blocks/read', { id: 'Beer Sensor' })).body.nid, 151, 'the other block is kept as it is');
});

t.test('a live create or rename with a space at an end is refused, the message naming it', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const create = await post('blocks/create', { id: 'Fridge Sensor ', type: 'TempSensorMock', data: {} });
  t.equal(create.status, 422);
  t.match(create.body.message, /id: .*'Fridge Sensor ' ends with a space/);
  t.equal((await post('blocks/create', { id: 'Fridge Sensor', type: 'TempSensorMock', data: {} })).status, 201);
  const rename = await post('blocks/rename', { existing: 'Fridge Sensor', desired: ' Fridge Sensor' });
  t.equal(rename.status, 422);
  t.match(rename.body.message, /desired: .*' Fridge Sensor' starts with a space/);
});
