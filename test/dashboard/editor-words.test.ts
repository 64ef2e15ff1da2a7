// The block editor in words (issue 47.2), on the public API's shapes: enum values as words,
// durations as people write them (and read back by the service's own parser), constraints
// switched on and off with their settings, and their state in words.
import t from 'tap';
import type { Block } from '../../web/src/api.js';
import { constraintState, constraintsPatch, draftOf } from '../../web/src/constraints.js';
import { enumWord } from '../../web/src/enum-words.js';
import { durationText, durationWords, fromText, kindOf, toText } from '../../web/src/field-kinds.js';
import type { Schema } from '../../web/src/type-doc.js';

const link = (id: string | null) => ({ __objtype: 'Link' as const, type: 'Any', id });
const sec = (value: number) => ({ __objtype: 'Quantity' as const, unit: 'second', value });
const block = (id: string, type: string, data: Record<string, unknown>): Block => ({ id, type, data });

t.test('enum values in words, a driven block names its driver', async (t) => {
  const heater = block('Heater', 'DigitalActuator', { claimedBy: link('Heat PWM') });
  t.equal(enumWord('STATE_INACTIVE', { type: 'DigitalActuator', field: 'storedState' }), 'Off');
  t.equal(enumWord('STATE_ACTIVE', { type: 'DigitalActuator', field: 'storedState' }), 'On');
  t.equal(enumWord('STATE_ACTIVE', { type: 'MotorValve', field: 'storedState' }), 'Open', 'a valve opens');
  t.equal(enumWord('CLAIMED', { type: 'DigitalActuator', field: 'settingMode', block: heater }), 'Driven by Heat PWM');
  t.match(enumWord('CLAIMED', { type: 'DigitalActuator', field: 'settingMode' }), /^Driven by another block/);
  t.equal(enumWord('ST_OFF', { type: 'DigitalActuator', field: 'transitionDurationPreset' }), 'No soft start');
  t.equal(enumWord('FILTER_45s', { type: 'SetpointSensorPair', field: 'filter' }), 'Settles in 45 s');
  const valve = ['VALVE_OPEN', 'VALVE_HALF_OPEN_IDLE', 'VALVE_CLOSED'];
  t.equal(
    enumWord('VALVE_HALF_OPEN_IDLE', { type: 'MotorValve', field: 'valveState', values: valve }),
    'Half open idle',
    'a value the table does not know is worded from its name',
  );
  t.equal(enumWord('BME280', { type: 'EnvSensorI2c', field: 'chip', values: ['BME280', 'SHT4X'] }), 'BME280');
});

t.test('durations: written as people write them, read back by the service’s parser', async (t) => {
  t.equal(durationText(130), '2 min 10 s');
  t.equal(durationText(600), '10 min');
  t.equal(durationText(5400), '1 h 30 min');
  t.equal(durationText(0), '0 s');
  t.equal(durationWords(3661), '1 h 1 min', 'a state says two units at most');
  const duration: Schema = { 'x-unit': 'second', anyOf: [{ properties: { __objtype: { enum: ['Quantity'] } } }] };
  t.equal(kindOf(duration), 'duration');
  t.equal(toText('duration', sec(130)), '2 min 10 s');
  for (const [text, seconds] of [
    ['2 min 10 s', 130],
    ['1h30m', 5400],
    ['90', 90],
    ['10 min', 600],
  ] as const)
    t.equal(fromText('duration', 'Period', text), seconds, `"${text}" is ${seconds} s`);
  t.throws(() => fromText('duration', 'Period', 'soon'), /Period: "soon" is not a duration/);
  t.throws(() => fromText('number', 'Setting', 'warm'), /Setting: "warm" is not a number/);
  t.equal(fromText('number', 'Setting', '20,5'), 20.5, 'a decimal comma is read');
  for (const [text, n] of [
    ['-.5', -0.5],
    ['+2,5', 2.5],
    ['1e3', 1000],
    [' 7 ', 7],
  ] as const)
    t.equal(fromText('quantity', 'Kp', text), n, `"${text}" is ${n}`);
  // What the field shows is what is saved: no hex, no default for an emptied field.
  for (const text of ['0x10', '0b11', 'Infinity', '1e999', '1 000'])
    t.throws(() => fromText('quantity', 'Kp', text), /Kp: ".*" is not a number/, `"${text}" is not read as a number`);
  t.throws(() => fromText('quantity', 'Kp', ' '), /Kp: enter a number/, 'an emptied number is not sent as null (0)');
  t.throws(() => fromText('integer', 'Channel', ''), /Channel: enter a number/);
  t.throws(() => fromText('duration', 'Td', ''), /Td: enter a time \(0 s for none\)/, 'nor an emptied time');
});

const durationMember: Schema = {
  type: 'object',
  properties: {
    duration: { 'x-unit': 'second', anyOf: [{ properties: { __objtype: { enum: ['Quantity'] } } }] },
    enabled: { type: 'boolean' },
    limiting: { type: 'boolean', readOnly: true },
    remaining: { 'x-unit': 'second', readOnly: true },
  },
};
const mutexMember: Schema = {
  type: 'object',
  properties: {
    mutexId: { type: 'object', properties: { __objtype: { enum: ['Link'] }, type: { enum: ['MutexInterface'] } } },
    extraHoldTime: { 'x-unit': 'second', anyOf: [{ properties: { __objtype: { enum: ['Quantity'] } } }] },
    enabled: { type: 'boolean' },
    hasLock: { type: 'boolean', readOnly: true },
    limiting: { type: 'boolean', readOnly: true },
  },
};
const constraints: Schema = {
  type: 'object',
  properties: { minOff: durationMember, minOn: durationMember, mutexed: mutexMember },
};

t.test('constraints: an object of members with `enabled` is edited as constraints', async (t) => {
  t.equal(kindOf(constraints), 'constraints');
  const current = { minOn: { duration: sec(60), enabled: true } };
  t.same(draftOf(durationMember, current.minOn), { on: true, values: { duration: '1 min' } });
  t.equal(
    constraintsPatch(constraints, current, { minOn: { on: true, values: { duration: '1 min' } } }),
    undefined,
    'nothing changed: nothing sent',
  );
  t.same(
    constraintsPatch(constraints, current, {
      minOff: { on: true, values: { duration: '2 min 10 s' } },
      minOn: { on: false, values: { duration: '1 min' } },
      mutexed: { on: true, values: { mutexId: 'Heat Cool Mutex', extraHoldTime: '10 min' } },
    }),
    {
      minOff: { enabled: true, duration: 130 },
      minOn: null,
      mutexed: { enabled: true, mutexId: { __objtype: 'Link', id: 'Heat Cool Mutex' }, extraHoldTime: 600 },
    },
    'switched on: sent whole; switched off: removed',
  );
  t.throws(
    () =>
      constraintsPatch(constraints, current, {
        minOff: { on: true, values: { duration: 'a while' } },
        mutexed: { on: true, values: { mutexId: '', extraHoldTime: '0' } },
      }),
    /minimum off time: time: "a while" is not a duration.*mutex: mutex: choose one/,
    'every bad setting named',
  );
  t.throws(
    () =>
      constraintsPatch(constraints, current, {
        minOff: { on: true, values: { duration: '' } },
        mutexed: { on: true, values: { mutexId: 'Heat Cool Mutex', extraHoldTime: ' ' } },
      }),
    /minimum off time: time: enter a time \(0 s for none\).*mutex: extra hold time: enter a time/,
    'a time left empty is said, not saved as 0 s',
  );
});

t.test('what a constraint does now, in words', async (t) => {
  const heater = block('Heater', 'DigitalActuator', {
    constraints: { mutexed: { mutexId: link('Mutex'), hasLock: true, limiting: false } },
  });
  const mutex = block('Mutex', 'Mutex', {});
  const blocks = new Map([
    [heater.id, heater],
    [mutex.id, mutex],
  ]);
  t.equal(
    constraintState('minOff', { enabled: true, limiting: true, remaining: sec(130) }, 'Cooler', blocks),
    'waiting 2 min 10 s for the minimum off time',
  );
  t.equal(
    constraintState('minOn', { enabled: true, limiting: true, remaining: sec(50) }, 'Cooler', blocks),
    'keeping the output on 50 s more for the minimum on time',
  );
  t.equal(constraintState('minOff', { enabled: true, limiting: false }, 'Cooler', blocks), 'not limiting now');
  t.equal(
    constraintState('mutexed', { mutexId: link('Mutex'), limiting: true, remaining: sec(180) }, 'Cooler', blocks),
    'waiting 3 min for Mutex, held by Heater',
  );
  t.equal(constraintState('mutexed', { mutexId: link('Mutex'), hasLock: true }, 'Heater', blocks), 'holds Mutex');
  t.equal(
    constraintState('mutexed', { mutexId: link('Gone'), limiting: false }, 'Cooler', blocks),
    'Gone is missing (deleted): it cannot switch on until another mutex is chosen or this constraint is off',
    'a deleted mutex is not free: it keeps the output off',
  );
  t.equal(
    constraintState('minOff', { enabled: false }, 'Cooler', blocks),
    null,
    'a constraint switched off says nothing',
  );
});
