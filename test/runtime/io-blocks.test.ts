import t from 'tap';
import { runFor } from '../../src/runtime/loop.js';
import { testRuntime } from '../helpers/runtime.js';
import { at } from '../helpers/json.js';

t.test('DigitalActuator drives a MockPins channel, with invert, and claims it', async (t) => {
  const { runtime, clock } = testRuntime();
  runtime.create({ id: 'pins', type: 'MockPins', data: {} });
  const act = runtime.create({
    id: 'heater',
    type: 'DigitalActuator',
    data: { 'hwDevice<>': 'pins', channel: 2, storedState: 'STATE_ACTIVE' },
  });
  t.equal(act.data.state, 'STATE_ACTIVE');
  const pins = runtime.find('pins')!;
  const io = pins.def.io!(pins, {} as never)!;
  t.equal(io.read(2), true, 'the pin is on');
  t.equal(at(runtime.read({ id: 'pins' }).json().data, 'channels', 1, 'claimedBy', 'id'), 'heater');
  runtime.patch({ id: 'heater', type: 'DigitalActuator', data: { invert: true } });
  t.equal(io.read(2), false, 'inverted: active means the pin is low');
  t.equal(runtime.read({ id: 'heater' }).json().data.state, 'STATE_ACTIVE');
  runtime.patch({ id: 'heater', type: 'DigitalActuator', data: { storedState: 0 } });
  t.equal(io.read(2), true, 'inverted inactive drives the pin high');
  const other = runtime.create({
    id: 'other',
    type: 'DigitalActuator',
    data: { 'hwDevice<>': 'pins', channel: 2, storedState: 'STATE_ACTIVE' },
  });
  t.equal(other.data.state, null, 'a claimed channel is not available to a second actuator');
  runtime.patch({ id: 'heater', type: 'DigitalActuator', data: { channel: 3 } });
  await runFor(runtime, clock, 2000, 500);
  t.equal(runtime.read({ id: 'other' }).json().data.state, 'STATE_ACTIVE', 'released channel is picked up');
  runtime.delete({ id: 'other' });
  t.equal(io.read(2), false, 'a deleted actuator leaves its channel off');
  t.equal(at(runtime.read({ id: 'pins' }).json().data, 'channels', 1, 'claimedBy', 'id'), null);
});

t.test('ActuatorAnalogMock clips setting and value and applies min/max constraints', async (t) => {
  const { runtime } = testRuntime();
  let b = runtime.create({
    id: 'a',
    type: 'ActuatorAnalogMock',
    data: { storedSetting: 80, maxSetting: 70, maxValue: 60 },
  });
  t.equal(b.data.setting, 70);
  t.equal(b.data.value, 60);
  b = runtime.patch({
    id: 'a',
    type: 'ActuatorAnalogMock',
    data: { constraints: { max: { value: 50, enabled: true } } },
  });
  t.equal(b.data.setting, 50);
  t.equal(at(b.data, 'constraints', 'max', 'limiting'), true);
  b = runtime.patch({
    id: 'a',
    type: 'ActuatorAnalogMock',
    data: { storedSetting: 5, constraints: { min: { value: 10, enabled: true } } },
  });
  t.equal(b.data.setting, 10);
  t.equal(at(b.data, 'constraints', 'min', 'limiting'), true);
  t.equal(at(b.data, 'constraints', 'max', 'limiting'), false);
});

t.test('TempSensorExternal expires after its timeout and TempSensorMock disconnects', async (t) => {
  const { runtime, clock } = testRuntime();
  runtime.create({ id: 'ext', type: 'TempSensorExternal', data: { timeout: 10, setting: 21 } });
  t.equal(at(runtime.read({ id: 'ext' }).json().data, 'value', 'value'), 21);
  t.type(runtime.read({ id: 'ext' }).json().data.lastUpdated, 'string');
  await runFor(runtime, clock, 11_000, 1000);
  t.equal(at(runtime.read({ id: 'ext' }).json().data, 'value', 'value'), null, 'expired');
  runtime.patch({ id: 'ext', type: 'TempSensorExternal', data: { setting: 22 } });
  t.equal(at(runtime.read({ id: 'ext' }).json().data, 'value', 'value'), 22, 'fresh again after a write');
  runtime.create({ id: 'mock', type: 'TempSensorMock', data: { setting: 19, connected: false } });
  t.equal(at(runtime.read({ id: 'mock' }).json().data, 'value', 'value'), null);
});

t.test('SetpointSensorPair: setting follows enabled, value goes null within 2 s of the sensor value', async (t) => {
  const { runtime, clock } = testRuntime();
  runtime.create({ id: 's', type: 'TempSensorMock', data: { setting: 20 } });
  runtime.create({
    id: 'sp',
    type: 'SetpointSensorPair',
    data: { enabled: true, storedSetting: 18, 'sensorId<>': 's' },
  });
  await runFor(runtime, clock, 3000, 1000);
  let sp = runtime.read({ id: 'sp' }).json();
  t.equal(at(sp.data, 'setting', 'value'), 18);
  t.equal(at(sp.data, 'value', 'value'), 20);
  runtime.patch({ id: 's', type: 'TempSensorMock', data: { connected: false } });
  await runFor(runtime, clock, 1000, 1000);
  t.equal(at(runtime.read({ id: 'sp' }).json().data, 'value', 'value'), 20, 'rides through one missed sample');
  await runFor(runtime, clock, 1000, 1000);
  t.equal(at(runtime.read({ id: 'sp' }).json().data, 'value', 'value'), null, 'null by the second');
  sp = runtime.patch({ id: 'sp', type: 'SetpointSensorPair', data: { enabled: false } });
  t.equal(at(sp.data, 'setting', 'value'), null);
});

t.test('an actuator that moves to another channel or device, or is deleted, leaves its old output off', async (t) => {
  const { runtime } = testRuntime();
  runtime.create({ id: 'pins', type: 'MockPins', data: {} });
  runtime.create({ id: 'pins2', type: 'MockPins', data: {} });
  const pins = (id: string) => (runtime.find(id)!.state as { pins: boolean[] }).pins;
  runtime.create({
    id: 'heater',
    type: 'DigitalActuator',
    data: { 'hwDevice<>': 'pins', channel: 1, storedState: 'STATE_ACTIVE' },
  });
  t.same(pins('pins').slice(0, 3), [true, false, false]);
  runtime.patch({ id: 'heater', type: 'DigitalActuator', data: { channel: 3 } });
  t.same(pins('pins').slice(0, 3), [false, false, true], 'channel 1 switched off when the actuator moved to channel 3');
  runtime.patch({ id: 'heater', type: 'DigitalActuator', data: { 'hwDevice<>': 'pins2' } });
  t.equal(pins('pins')[2], false, 'the old device is switched off');
  t.equal(pins('pins2')[2], true);
  runtime.patch({ id: 'heater', type: 'DigitalActuator', data: { hwDevice: null } });
  t.equal(pins('pins2')[2], false, 'unlinking the device switches its output off');
  runtime.patch({ id: 'heater', type: 'DigitalActuator', data: { 'hwDevice<>': 'pins', channel: 4, invert: true } });
  t.equal(pins('pins')[3], false, 'inverted and active: the pin is low');
  runtime.patch({ id: 'heater', type: 'DigitalActuator', data: { channel: 0 } });
  t.equal(pins('pins')[3], true, 'channel 0: the old inverted output is left at its inactive (high) level');
  runtime.patch({ id: 'heater', type: 'DigitalActuator', data: { channel: 5 } });
  runtime.delete({ id: 'heater' });
  t.equal(pins('pins')[4], true, 'deleting an inverted actuator leaves its pin at the inactive level');
});
