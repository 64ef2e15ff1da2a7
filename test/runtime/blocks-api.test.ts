import t from 'tap';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { testRuntime } from '../helpers/runtime.js';
import { ALL } from '../../src/runtime/runtime.js';
import { at, objectAt } from '../helpers/json.js';

const sensor = { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 20 } };
const setpoint = {
  id: 'Beer Setpoint',
  type: 'SetpointSensorPair',
  data: { enabled: true, storedSetting: 19, filterThreshold: 2, 'sensorId<>': 'Beer Sensor' },
};

t.test('write replaces the whole state; patch keeps what it does not name', async (t) => {
  const { runtime } = testRuntime();
  runtime.create(sensor);
  runtime.create(setpoint);
  const written = runtime.write({ id: 'Beer Setpoint', type: 'SetpointSensorPair', data: { enabled: true } });
  t.equal(at(written.data, 'storedSetting', 'value'), 0, 'omitted storedSetting back to default');
  t.equal(at(written.data, 'filterThreshold', 'value'), 0);
  t.equal(at(written.data, 'sensorId', 'id'), null, 'omitted link unset');
  runtime.write(setpoint);
  const patched = runtime.patch({ id: 'Beer Setpoint', type: 'SetpointSensorPair', data: { storedSetting: 21 } });
  t.equal(at(patched.data, 'storedSetting', 'value'), 21);
  t.equal(at(patched.data, 'filterThreshold', 'value'), 2, 'patch keeps other fields');
  t.equal(at(patched.data, 'sensorId', 'id'), 'Beer Sensor');
});

t.test('deep patch of nested constraints, and null removes a sub-object', async (t) => {
  const { runtime } = testRuntime();
  runtime.create({
    id: 'mock',
    type: 'ActuatorAnalogMock',
    data: { enabled: true, constraints: { min: { value: 10 } } },
  });
  let b = runtime.patch({ id: 'mock', type: 'ActuatorAnalogMock', data: { constraints: { max: { value: 100 } } } });
  t.equal(b.data.enabled, true);
  t.same(b.data.constraints, {
    min: { value: 10, enabled: false, limiting: false },
    max: { value: 100, enabled: false, limiting: false },
  });
  b = runtime.patch({ id: 'mock', type: 'ActuatorAnalogMock', data: { constraints: { max: { enabled: true } } } });
  t.same(at(b.data, 'constraints', 'max'), { value: 100, enabled: true, limiting: false });
  t.same(at(b.data, 'constraints', 'min'), { value: 10, enabled: false, limiting: false });
  b = runtime.patch({ id: 'mock', type: 'ActuatorAnalogMock', data: { constraints: { max: null } } });
  t.same(Object.keys(objectAt(b.data, 'constraints')), ['min']);
});

t.test('writes are idempotent and unchanged data is never written again', async (t) => {
  const persistence = new MemoryPersistence();
  const { runtime } = testRuntime({ persistence });
  runtime.create(sensor);
  runtime.create(setpoint);
  const first = runtime.write(setpoint);
  const writes = persistence.writes;
  const again = runtime.write(setpoint);
  runtime.patch({ id: 'Beer Setpoint', type: 'SetpointSensorPair', data: { storedSetting: 19 } });
  t.same(again.data, first.data, 'same result');
  t.equal(persistence.writes, writes, 'no write for identical stored data');
  runtime.patch({ id: 'Beer Setpoint', type: 'SetpointSensorPair', data: {}, meta: { note: 'x' } });
  t.equal(persistence.writes, writes + 1, 'a meta change is written');
});

t.test('read-only fields in input are ignored', async (t) => {
  const { runtime } = testRuntime();
  runtime.create(sensor);
  const b = runtime.create({
    id: 'sp',
    type: 'SetpointSensorPair',
    data: {
      enabled: true,
      storedSetting: 20,
      value: 99,
      setting: { __objtype: 'Quantity', value: 55 },
      'valueUnfiltered[degF]': 1,
    },
  });
  t.equal(at(b.data, 'setting', 'value'), 20);
  t.not(at(b.data, 'value', 'value'), 99);
});

t.test('meta is kept, replaced by write, shallow-merged by patch', async (t) => {
  const { runtime } = testRuntime();
  runtime.create({ ...sensor, meta: { color: 'red', pos: { x: 1 } } });
  let b = runtime.patch({ id: 'Beer Sensor', type: 'TempSensorMock', data: {}, meta: { pos: { y: 2 } } });
  t.same(b.meta, { color: 'red', pos: { y: 2 } });
  b = runtime.read({ id: 'Beer Sensor' }).json();
  t.same(b.meta, { color: 'red', pos: { y: 2 } });
  b = runtime.write({ ...sensor, meta: { only: true } });
  t.same(b.meta, { only: true });
  b = runtime.write(sensor);
  t.same(b.meta, {}, 'a write without meta clears it');
});

t.test('ids, nids and the system block', async (t) => {
  const { runtime } = testRuntime();
  const a = runtime.create(sensor);
  t.ok(a.nid >= 100);
  runtime.delete({ id: a.id });
  const b = runtime.create(sensor);
  t.ok(b.nid > a.nid, 'nids are never reused');
  const c = runtime.create({ ...sensor, id: 'chosen', nid: 500 });
  t.equal(c.nid, 500);
  t.equal(runtime.read({ id: 'nope', nid: 500 }).json().id, 'chosen', 'nid wins over id');
  const sys = runtime.read({ nid: 2 }).json();
  t.equal(sys.id, 'SysInfo');
  t.equal(sys.type, 'SysInfo');
  t.throws(() => runtime.delete({ id: 'SysInfo' }), { name: 'BlockError', kind: 'conflict' });
  t.throws(() => runtime.create({ id: 'x', type: 'SysInfo', data: {} }), { name: 'BlockError', kind: 'conflict' });
  t.same(
    runtime
      .deleteAll()
      .map((i) => i.id)
      .sort(),
    ['Beer Sensor', 'chosen'],
  );
  t.same(
    runtime
      .read(ALL)
      .json()
      .map((b) => b.id),
    runtime
      .blocks()
      .filter((b) => b.def.system)
      .map((b) => b.id),
    'only system blocks remain',
  );
  t.ok(
    runtime
      .read(ALL)
      .json()
      .some((b) => b.id === 'SysInfo'),
  );
});

t.test('units preference changes output and the meaning of bare numbers', async (t) => {
  const { runtime, units } = testRuntime();
  runtime.create({ id: 'sp', type: 'SetpointSensorPair', data: { storedSetting: 20, filterThreshold: 1 } });
  units.temperature = 'degF';
  let b = runtime.read({ id: 'sp' }).json();
  t.same(b.data.storedSetting, { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'degF', value: 68 });
  t.same(b.data.filterThreshold, { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'delta_degF', value: 1.8 });
  runtime.patch({ id: 'sp', type: 'SetpointSensorPair', data: { storedSetting: 50 } });
  units.temperature = 'degC';
  b = runtime.read({ id: 'sp' }).json();
  t.equal(at(b.data, 'storedSetting', 'value'), 10);
});

t.test('a link to a deleted block dangles without breaking the owner', async (t) => {
  const { runtime, clock } = testRuntime();
  runtime.create(sensor);
  runtime.create(setpoint);
  runtime.delete({ id: 'Beer Sensor' });
  for (let i = 0; i < 15; i++) {
    clock.advance(1000);
    runtime.tick();
  }
  const b = runtime.read({ id: 'Beer Setpoint' }).json();
  t.equal(at(b.data, 'sensorId', 'id'), 'Beer Sensor', 'the link still names its target');
  t.equal(at(b.data, 'value', 'value'), null, 'the value goes null after the sensor disappears');
  runtime.create(sensor);
  clock.advance(1000);
  runtime.tick();
  t.equal(
    at(runtime.read({ id: 'Beer Setpoint' }).json().data, 'value', 'value'),
    20,
    're-resolves when the target returns',
  );
});

t.test('a change that cannot be stored is undone in memory too', async (t) => {
  class FailingPersistence extends MemoryPersistence {
    failFor = '';
    override saveBlock(r: Parameters<MemoryPersistence['saveBlock']>[0]): void {
      if (r.id === this.failFor) throw new Error('disk full');
      super.saveBlock(r);
    }
    override replaceBlocks(records: Parameters<MemoryPersistence['replaceBlocks']>[0]): void {
      if (records.some((r) => r.id === this.failFor)) throw new Error('disk full');
      super.replaceBlocks(records);
    }
  }
  const persistence = new FailingPersistence();
  const { runtime } = testRuntime({ persistence });
  runtime.create(sensor);
  persistence.failFor = 'ghost';
  t.throws(() => runtime.create({ id: 'ghost', type: 'TempSensorMock', data: {} }), /disk full/);
  t.notOk(runtime.find('ghost'), 'no ghost block after a failed create');
  t.doesNotThrow(() => runtime.read(ALL).json());
  persistence.failFor = 'Beer Sensor';
  t.throws(
    () => runtime.patch({ id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 30 }, meta: { x: 1 } }),
    /disk full/,
  );
  const b = runtime.read({ id: 'Beer Sensor' }).json();
  t.equal(at(b.data, 'setting', 'value'), 20, 'the failed patch is rolled back');
  t.same(b.meta, {});
  persistence.failFor = 'new';
  await t.rejects(
    runtime.backupLoad({ blocks: [{ id: 'new', nid: 300, type: 'TempSensorMock', data: {} }] }),
    /disk full/,
  );
  t.ok(runtime.find('Beer Sensor'), 'a backup load that cannot be stored leaves the blocks as they were');
  t.notOk(runtime.find('new'));
});
