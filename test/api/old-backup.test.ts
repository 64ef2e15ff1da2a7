// Old backups load (issue 44, item 5): a field this controller does not know, or one later
// firmware retired, is dropped field by field with a warning naming the block and the field;
// the block is kept. The API returns warnings apart from failures (and both in Brewblox's one
// `messages` list, in the order met). Before, one unknown field failed the whole block ("unknown
// field 'legacyField'"). The backup bytes are the Brewblox Spark service's own test fixture
// (test/fixtures/brewblox/devcon-spark.json), with fields added as an older or newer firmware
// would have them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { ROOT } from '../helpers/root.js';

const fixture = JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/brewblox/devcon-spark.json'), 'utf8'));

t.test('an unknown field is dropped with a warning naming block and field; the block is kept', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const backup = {
    blocks: [
      {
        id: 'Beer Sensor',
        nid: 202,
        type: 'TempSensorMock',
        data: { setting: 19.5, connected: true, legacyField: 42 },
      },
      {
        id: 'Beer Setpoint',
        nid: 205,
        type: 'SetpointSensorPair',
        data: {
          'sensorId<>': 'Beer Sensor',
          'storedSetting[degC]': 18,
          enabled: true,
          futureFilterMode: 'FILTER_NEW',
        },
      },
    ],
  };
  const res = await post('blocks/backup/load', backup);
  t.equal(res.status, 200, JSON.stringify(res.body));
  t.same(res.body.failures, [], 'no failure');
  t.equal(res.body.warnings.length, 2, 'one warning per dropped field');
  t.match(res.body.warnings[0], /id 'Beer Sensor'.*field 'legacyField' dropped/);
  t.match(res.body.warnings[1], /id 'Beer Setpoint'.*field 'futureFilterMode' dropped/);
  t.same(res.body.messages, res.body.warnings, 'Brewblox clients see them in messages');
  const sensor = (await post('blocks/read/stored', { id: 'Beer Sensor' })).body;
  t.equal(sensor.data.setting.value, 19.5, 'the block is kept with its known fields');
  const pair = (await post('blocks/read/stored', { id: 'Beer Setpoint' })).body;
  t.equal(pair.data.storedSetting.value, 18);
  t.equal(pair.data.sensorId.id, 'Beer Sensor', 'its links too');
});

t.test("the Spark service's backup fixture: retired fields warned, failures apart", async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const blocks = structuredClone(fixture.blocks) as Array<{ id?: string; type: string; data: Record<string, unknown> }>;
  // A field a newer firmware added, on a block the fixture also gives retired fields.
  blocks.find((b) => b.id === 'mutex-1')!.data.waitMode = 'WAIT_ANY';
  const res = await post('blocks/backup/load', {
    blocks: [...blocks, ...fixture.extra],
    store: [],
    // What the Spark service writes beside the blocks: ignored.
    name: 'autosave_blocks_spark-one_2021-03-04',
    timestamp: '2021-03-04T10:00:00Z',
    firmware: { firmware_version: 'f27f141c', proto_version: '5f3b4ec5', firmware_date: '2021-02-23' },
    device: { device_id: '123456789012345678901234' },
  });
  t.equal(res.status, 200);
  const { failures, warnings, messages } = res.body as Record<string, string[]>;
  t.equal(failures.length, 1, `the blocks that cannot load: ${JSON.stringify(failures)}`);
  t.match(failures[0], /derpface.*INVALID/, 'the block of an unknown type fails');
  t.ok(
    warnings.some((w) =>
      /id 'fantast'.*loaded; its link sensorId: block 'going to another high school' does not exist/.test(w),
    ),
    'a link to a block the backup does not hold is a warning; the block loads',
  );
  t.ok(
    warnings.some((w) => /id 'mutex-1'.*field 'waitMode' dropped/.test(w)),
    'the unknown field is a warning naming block and field',
  );
  t.ok(
    warnings.some((w) => /id 'mutex-1'.*field 'differentActuatorWait' dropped \(retired/.test(w)),
    'a field later firmware retired is a warning too, its value being lost',
  );
  t.ok(
    warnings.some((w) => /Groups.*skipped: a Spark system block/.test(w)),
    'a Spark system block with no counterpart here is a warning',
  );
  t.equal(messages.length, failures.length + warnings.length, 'messages holds both');
  const ids = ((await post('blocks/all/read')).body as Array<{ id: string }>).map((b) => b.id);
  t.ok(ids.includes('mutex-1'), 'the block with unknown and retired fields is kept');
  t.ok(ids.includes('sensor-onewire-old'), 'the older OneWire sensor shape too');
  t.notOk(ids.includes('derpface'));
});

t.test(
  'a field of an unknown block type still fails that block, and an API write still refuses unknown fields',
  async (t) => {
    const { post, close } = await startApp({}, { listen: false });
    t.teardown(close);
    const res = await post('blocks/backup/load', {
      blocks: [
        { id: 'ok', nid: 300, type: 'TempSensorMock', data: { setting: 20 } },
        { id: 'bad value', nid: 301, type: 'TempSensorMock', data: { setting: 'hot', extra: 1 } },
      ],
    });
    t.equal(res.status, 200);
    t.equal(res.body.failures.length, 1, 'a wrong value of a known field fails its block');
    t.match(res.body.failures[0], /bad value.*setting/);
    t.same(res.body.warnings, [], 'a failed block gives no warning about its fields');
    const create = await post('blocks/create', { id: 'new', type: 'TempSensorMock', data: { legacyField: 1 } });
    t.equal(create.status, 422, 'the block API still refuses a field it does not know');
  },
);
