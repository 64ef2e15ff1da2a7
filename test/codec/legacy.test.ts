// Legacy vocabulary: each deprecated Brewblox shape -> the stored shape.
import t, { type Test } from 'tap';
import { BlockError } from '../../src/runtime/errors.js';
import { testRuntime } from '../helpers/runtime.js';
import { at } from '../helpers/json.js';

const q = (value: number, unit: string) => ({ __bloxtype: 'Quantity', value, unit });
const link = (id: string | null, type: string | null = null) => ({ __bloxtype: 'Link', id, type });

function chain() {
  const env = testRuntime();
  const rt = env.runtime;
  rt.create({ id: 'pins', type: 'MockPins', data: {} });
  rt.create({ id: 'mutex', type: 'Mutex', data: { differentActuatorWait: q(0, 's'), waitRemaining: q(0, 's') } });
  rt.create({ id: 'balancer', type: 'Balancer', data: {} });
  return { ...env, rt };
}

async function rejects(t: Test, fn: () => unknown, path: RegExp, message: RegExp) {
  try {
    fn();
    t.fail('expected a 422');
  } catch (e) {
    t.ok(e instanceof BlockError && e.kind === 'invalid', 'a validation error');
    const issues = (e as BlockError).validation ?? [];
    t.ok(
      issues.some((i) => path.test(i.path) && message.test(i.message)),
      `an issue at ${path} matching ${message}: ${JSON.stringify(issues)}`,
    );
  }
}

t.test('digital constrainedBy list becomes the constraints object (durations and mutex)', async (t) => {
  const { rt } = chain();
  const b = rt.create({
    id: 'cool',
    type: 'DigitalActuator',
    data: {
      hwDevice: link('pins'),
      channel: 1,
      invert: false,
      desiredState: 'STATE_INACTIVE',
      state: 'STATE_INACTIVE',
      constrainedBy: {
        constraints: [
          { minOff: q(300, 's'), remaining: q(0, 's') },
          { minOn: q(2, 'min'), remaining: q(0, 's') },
          { delayedOn: q(1500, 'ms') },
          { 'delayedOff[s]': 4 },
          {
            mutexed: { mutexId: link('mutex'), extraHoldTime: q(45, 'mins'), hasCustomHoldTime: true, hasLock: false },
            remaining: q(0, 's'),
          },
        ],
      },
    },
  });
  const c = b.data.constraints as Record<string, Record<string, any>>;
  t.same([c.minOff!.enabled, c.minOff!.duration.value], [true, 300]);
  t.same([c.minOn!.enabled, c.minOn!.duration.value], [true, 120]);
  t.equal(c.delayedOn!.duration.value, 1.5);
  t.equal(c.delayedOff!.duration.value, 4);
  t.same([c.mutexed!.enabled, c.mutexed!.mutexId.id, c.mutexed!.extraHoldTime.value], [true, 'mutex', 2700]);
  const stored = rt.read({ id: 'cool' }, 'stored').json().data as Record<string, any>;
  t.notOk('constrainedBy' in stored, 'the legacy name is not stored');
  t.equal(stored.constraints.mutexed.extraHoldTime.value, 2700, 'the translated constraint is stored');
});

t.test('the oldest mutex form and an empty list', async (t) => {
  const { rt } = chain();
  const b = rt.create({
    id: 'a',
    type: 'DigitalActuator',
    data: { channel: 1, constrainedBy: { constraints: [{ 'mutex<>': 'mutex' }] } },
  });
  t.equal((b.data.constraints as any).mutexed.mutexId.id, 'mutex');
  const e = rt.create({ id: 'e', type: 'DigitalActuator', data: { channel: 2, constrainedBy: { constraints: [] } } });
  t.same(Object.keys(e.data.constraints as object), [], 'no constraint set');
});

t.test('analog constrainedBy list: min, max, balanced', async (t) => {
  const { rt } = chain();
  rt.create({ id: 'act', type: 'DigitalActuator', data: { hwDevice: link('pins'), channel: 1 } });
  const b = rt.create({
    id: 'pwm',
    type: 'ActuatorPwm',
    data: {
      enabled: true,
      period: q(10, 's'),
      actuatorId: link('act'),
      drivenActuatorId: link(null),
      setting: 0,
      desiredSetting: 0,
      value: 0,
      constrainedBy: {
        constraints: [
          { min: 5, limiting: false },
          { max: 50 },
          { 'balanced<>': { 'balancerId<>': 'balancer', granted: 0 } },
        ],
      },
    },
  });
  const c = b.data.constraints as Record<string, Record<string, any>>;
  t.same([c.min!.enabled, c.min!.value], [true, 5]);
  t.same([c.max!.enabled, c.max!.value], [true, 50]);
  t.same([c.balanced!.enabled, c.balanced!.balancerId.id], [true, 'balancer']);
  for (const type of ['ActuatorAnalogMock', 'ActuatorOffset']) {
    const o = rt.create({ id: `x-${type}`, type, data: { constrainedBy: { constraints: [{ max: 80 }] } } });
    t.equal((o.data.constraints as any).max.value, 80, `${type} translates too`);
  }
});

t.test('a mutexed constraint naming a missing Mutex is a 422 naming it; nothing is created', async (t) => {
  const { rt } = chain();
  await rejects(
    t,
    () =>
      rt.create({
        id: 'x',
        type: 'DigitalActuator',
        data: { constrainedBy: { constraints: [{ mutexed: { mutexId: link('Ghost Mutex') } }] } },
      }),
    /constrainedBy\.constraints\.0\.mutexed\.mutexId/,
    /Ghost Mutex/,
  );
  t.equal(rt.find('x'), undefined);
  await rejects(
    t,
    () =>
      rt.create({
        id: 'y',
        type: 'ActuatorPwm',
        data: { constrainedBy: { constraints: [{ balanced: { balancerId: link('nope') } }] } },
      }),
    /constrainedBy\.constraints\.0\.balanced/,
    /nope/,
  );
  await rejects(
    t,
    () => rt.create({ id: 'z', type: 'DigitalActuator', data: { constrainedBy: { constraints: [{ maxOn: 5 }] } } }),
    /constraints\.0\.maxOn/,
    /unknown digital constraint/,
  );
});

t.test('dropped fields are ignored, renamed ones move, unknown ones are still a 422', async (t) => {
  const { rt } = chain();
  rt.create({ id: 'sensor', type: 'TempSensorMock', data: { setting: 20, connected: true } });
  const sp = rt.create({
    id: 'sp',
    type: 'SetpointSensorPair',
    data: {
      sensorId: link('sensor'),
      storedSetting: q(20, 'degC'),
      settingEnabled: true,
      rampLimitEnabled: false,
      rampLimit: q(0, 'delta_degC / hour'),
    },
  });
  t.equal(sp.data.enabled, true, 'settingEnabled became enabled');
  const both = rt.create({ id: 'sp2', type: 'SetpointSensorPair', data: { settingEnabled: true, enabled: false } });
  t.equal(both.data.enabled, false, 'the current name wins over the legacy one');
  const pid = rt.create({
    id: 'pid',
    type: 'Pid',
    data: {
      drivenOutputId: link(null),
      filter: 'FILTER_15s',
      filterThreshold: 2,
      kff: q(0, '1/degC'),
      ambientId: link(null),
      ff: 0,
    },
  });
  t.equal(pid.type, 'Pid');
  await rejects(
    t,
    () => rt.patch({ id: 'sp', type: 'SetpointSensorPair', data: { rampLimitEnabled: true } }),
    /data\.rampLimitEnabled/,
    /not supported/,
  );
  await rejects(t, () => rt.patch({ id: 'pid', type: 'Pid', data: { kff: 3 } }), /data\.kff/, /not supported/);
  await rejects(
    t,
    () => rt.patch({ id: 'sp', type: 'SetpointSensorPair', data: { bogusField: 1 } }),
    /data\.bogusField/,
    /unknown field 'bogusField'/,
  );
  t.equal(rt.read({ id: 'sp' }).json().data.enabled, true, 'a refused patch changed nothing');
});

t.test('older UI shapes of FastPwm, MotorValve, Sequence, ActuatorLogic and the IO modules', async (t) => {
  const { rt } = chain();
  rt.create({
    id: 'valves',
    type: 'DS2408',
    data: { address: '29ee000000000001', connectMode: 'CONNECT_VALVE', pins: [] },
  });
  t.notOk('pins' in rt.read({ id: 'valves' }).json().data, 'pins (the old channel list) is not reported');
  const pwm = rt.create({
    id: 'pwm',
    type: 'FastPwm',
    data: {
      hwDevice: link('pins'),
      channel: 2,
      constrainedBy: { constraints: [{ min: 5 }, { max: 60 }, { balanced: { balancerId: link('balancer') } }] },
    },
  });
  t.match(pwm.data.constraints, {
    min: { enabled: true, value: 5 },
    max: { enabled: true, value: 60 },
    balanced: { enabled: true, balancerId: { id: 'balancer' } },
  });
  const valve = rt.create({
    id: 'valve',
    type: 'MotorValve',
    data: { hwDevice: link('valves'), startChannel: 5, constrainedBy: { constraints: [{ minOn: q(1, 'min') }] } },
  });
  t.equal(valve.data.channel, 5, 'startChannel became channel');
  t.match(valve.data.constraints, { minOn: { enabled: true, duration: { value: 60 } } });
  const both = rt.create({
    id: 'valve2',
    type: 'MotorValve',
    data: { hwDevice: link('valves'), startChannel: 5, channel: 1 },
  });
  t.equal(both.data.channel, 1, 'the current name wins');
  const seq = rt.create({
    id: 'seq',
    type: 'Sequence',
    data: {
      enabled: false,
      instructions: ['RESTART'],
      activeInstructionStartedAt: 1700000000,
      disabledAt: 0,
      disabledDuration: q(5, 's'),
    },
  });
  for (const name of ['activeInstructionStartedAt', 'disabledAt', 'disabledDuration'])
    t.notOk(name in seq.data, `${name} is dropped`);
  const logic = rt.create({
    id: 'logic',
    type: 'ActuatorLogic',
    data: { targetId: link(null), drivenTargetId: { ...link(null, 'ActuatorDigitalInterface'), driven: true } },
  });
  t.notOk('drivenTargetId' in logic.data);
  await rejects(
    t,
    () => rt.patch({ id: 'valve', type: 'MotorValve', data: { startChannels: 1 } }),
    /data\.startChannels/,
    /unknown field/,
  );
});

t.test('SetpointProfile points with absolute epoch times become offsets from start', async (t) => {
  const { rt } = chain();
  rt.create({ id: 'sp', type: 'SetpointSensorPair', data: {} });
  const b = rt.create({
    id: 'profile',
    type: 'SetpointProfile',
    data: {
      'targetId<>': 'sp',
      points: [
        { time: 1540376829, 'temperature[degC]': 0 },
        { time: 1540376839, 'temperature[degC]': 50 },
        { time: 1540376849, 'temperature[degC]': 100 },
      ],
    },
  });
  const points = b.data.points as Array<Record<string, any>>;
  t.same(
    points.map((p) => p.time.value),
    [0, 10, 20],
  );
  t.same(
    points.map((p) => p.temperature.value),
    [0, 50, 100],
  );
  t.equal(b.data.start, '2018-10-24T10:27:09Z');
  const rel = rt.create({
    id: 'p2',
    type: 'SetpointProfile',
    data: {
      start: 1700000000.5,
      points: [
        { time: 0, temperature: q(20, 'degC') },
        { time: 604800, temperature: q(20, 'degC') },
      ],
    },
  });
  t.same(
    (rel.data.points as any[]).map((p) => p.time.value),
    [0, 604800],
    'offsets stay offsets',
  );
});

t.test('a profile point at exactly 2001-09-09T01:46:40Z (1e9 s) is no set clock: it stays an offset', async (t) => {
  // The one rule of a set clock (isWallSet) decides both: taken as a date, it became a start the
  // start's own check refused, naming data.start, a field the client never sent.
  const { rt } = chain();
  const b = rt.create({
    id: 'edge',
    type: 'SetpointProfile',
    data: { points: [{ time: 1e9, temperature: q(20, 'degC') }] },
  });
  t.equal(b.data.start, null, 'no start made');
  t.same(
    (b.data.points as any[]).map((p) => p.time.value),
    [1e9],
    'the time kept as an offset',
  );
});

t.test('UI quirks: link 0, empty address, nid 0 or null, unit spellings, SysInfo fields', async (t) => {
  const { rt } = chain();
  const sp = rt.create({ id: 'sp', nid: 0, type: 'SetpointSensorPair', data: { 'sensorId<>': 0 } });
  t.ok(sp.nid >= 100, 'nid 0 assigns one');
  t.equal(at(sp.data, 'sensorId', 'id'), null);
  const ow = rt.create({
    id: 'ow',
    nid: null,
    type: 'TempSensorOneWire',
    data: { address: '', offset: q(0, 'delta_celsius') },
  });
  t.equal(ow.data.address, '0000000000000000');
  const ow2 = rt.create({ id: 'ow2', type: 'TempSensorOneWire', data: { address: '' } });
  t.ok(ow2, 'a second unbound sensor does not collide');
  const pwm = rt.create({
    id: 'pwm',
    type: 'ActuatorPwm',
    data: { period: { __bloxtype: 'Quantity', value: 2, unit: 'mins' } },
  });
  t.equal(at(pwm.data, 'period', 'value'), 120);
  const mock = rt.create({ id: 'm', type: 'TempSensorMock', data: { setting: q(68, 'fahrenheit') } });
  t.equal(at(mock.data, 'setting', 'value'), 20);
  const sys = rt.patch({
    id: 'SysInfo',
    type: 'SysInfo',
    data: { displayBrightness: 120, tempUnit: 'TEMP_FAHRENHEIT', ip: '10.0.0.2', voltage5: 5 },
  });
  t.same([sys.data.displayBrightness, sys.data.tempUnit], [120, 'TEMP_FAHRENHEIT']);
  t.same([rt.read({ id: 'SysInfo' }, 'stored').json().data.displayBrightness], [120], 'stored');
});

t.test('output carries both type markers', async (t) => {
  const { rt } = chain();
  const sp = rt.create({ id: 'sp', type: 'SetpointSensorPair', data: { storedSetting: 20 } });
  t.match(sp.data.storedSetting, { __objtype: 'Quantity', __bloxtype: 'Quantity', value: 20 });
  t.match(sp.data.sensorId, { __objtype: 'Link', __bloxtype: 'Link', id: null });
});
