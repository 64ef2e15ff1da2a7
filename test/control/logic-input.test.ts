import t from 'tap';
import type { LogicResultName } from '../../src/blocks/shared/enums.js';
import { evaluateExpression } from '../../src/blocks/shared/logic-expression.js';
import { link, setup } from './setup.js';

const T: LogicResultName = 'RESULT_TRUE';
const F: LogicResultName = 'RESULT_FALSE';

t.test('expression evaluation', async (t) => {
  const ev = (expr: string, digital: LogicResultName[] = [T, F, T], analog: LogicResultName[] = [T, F]) =>
    evaluateExpression(expr, digital, analog);
  t.same(ev('a'), { result: T, errorPos: 0 });
  t.same(ev('b'), { result: F, errorPos: 0 });
  t.same(ev('A&!B'), { result: T, errorPos: 0 });
  t.same(ev('(a|b)&c'), { result: T, errorPos: 0 });
  t.same(ev('a^c'), { result: F, errorPos: 0 });
  t.same(ev('a^b'), { result: T, errorPos: 0 });
  t.same(ev('!(a&b)'), { result: T, errorPos: 0 });
  t.same(ev('((a))'), { result: T, errorPos: 0 });
  // No precedence: an operator takes the rest of its bracket level (as the reference does).
  t.same(ev('b&b|c'), { result: F, errorPos: 0 }, 'b&b|c is b&(b|c)');
  t.same(ev('(b&b)|c'), { result: T, errorPos: 0 });
  t.same(ev('!a&b'), { result: T, errorPos: 0 }, '!a&b is !(a&b)');
  t.same(ev('(!a)&b'), { result: F, errorPos: 0 });
  t.same(ev(''), { result: 'RESULT_EMPTY', errorPos: 0 });
  t.same(ev('a b'), { result: 'RESULT_UNEXPECTED_CHARACTER', errorPos: 1 });
  t.same(ev('a(|b&c)'), { result: 'RESULT_UNEXPECTED_OPEN_BRACKET', errorPos: 1 });
  t.same(ev('a|(b&c'), { result: 'RESULT_MISSING_CLOSE_BRACKET', errorPos: 6 });
  t.same(ev('a)'), { result: 'RESULT_UNEXPECTED_CLOSE_BRACKET', errorPos: 1 });
  t.same(ev('ab'), { result: 'RESULT_UNEXPECTED_COMPARISON', errorPos: 1 });
  t.same(ev('a&'), { result: 'RESULT_EMPTY_SUBSTRING', errorPos: 2 });
  t.same(ev('a&()'), { result: 'RESULT_EMPTY_SUBSTRING', errorPos: 3 });
  t.same(ev('&a'), { result: 'RESULT_UNEXPECTED_OPERATOR', errorPos: 0 });
  t.same(ev('a!b'), { result: 'RESULT_UNEXPECTED_OPERATOR', errorPos: 1 });
  t.same(ev('a|d'), { result: 'RESULT_UNDEFINED_DIGITAL_COMPARE', errorPos: 2 });
  t.same(ev('C'), { result: 'RESULT_UNDEFINED_ANALOG_COMPARE', errorPos: 0 });
  t.same(
    ev('a|b', [T, 'RESULT_BLOCK_NOT_FOUND']),
    { result: 'RESULT_BLOCK_NOT_FOUND', errorPos: 2 },
    'a comparison error surfaces where it is used',
  );
  t.same(ev('a', [T, 'RESULT_BLOCK_NOT_FOUND']), { result: T, errorPos: 0 }, 'unused comparisons do not matter');
  t.end();
});

t.test('ActuatorLogic drives its target from digital and analog comparisons; anything but TRUE is off', async (t) => {
  const su = setup();
  su.create('pins', 'MockPins', {});
  su.create('pump', 'DigitalActuator', { hwDevice: link('pins'), channel: 1, storedState: 'STATE_ACTIVE' });
  su.create('valve', 'DigitalActuator', {
    hwDevice: link('pins'),
    channel: 2,
    constraints: { delayedOn: { duration: 60, enabled: true } },
  });
  su.create('fan', 'DigitalActuator', { hwDevice: link('pins'), channel: 3 });
  su.create('sensor', 'TempSensorExternal', { setting: 25, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', {
    sensorId: link('sensor'),
    storedSetting: 20,
    filter: 'FILTER_NONE',
    enabled: true,
  });
  su.create('logic', 'ActuatorLogic', {
    targetId: link('fan'),
    expression: 'a&(A|B)',
    digital: [
      { op: 'OP_VALUE_IS', id: link('pump'), rhs: 'STATE_ACTIVE' },
      { op: 'OP_DESIRED_IS', id: link('valve'), rhs: 'STATE_ACTIVE' },
      { op: 'OP_VALUE_IS_NOT', id: link('valve'), rhs: 'STATE_ACTIVE' },
    ],
    analog: [
      { op: 'OP_VALUE_GE', id: link('sp'), rhs: 24 },
      { op: 'OP_SETTING_LE', id: link('sp'), rhs: 15 },
    ],
  });
  await su.run(500, 100);
  const d = () => su.data('logic');
  t.equal(d().result, 'RESULT_TRUE');
  t.same(
    d().digital.map((c: { result: string }) => c.result),
    ['RESULT_TRUE', 'RESULT_FALSE', 'RESULT_TRUE'],
  );
  t.same(
    d().analog.map((c: { result: string }) => c.result),
    ['RESULT_TRUE', 'RESULT_FALSE'],
  );
  t.equal(su.pins('pins')[2], true, 'fan on');
  t.equal(su.data('fan').claimedBy, 'logic');
  su.patch('sensor', 'TempSensorExternal', { setting: 23 });
  await su.run(1100, 100);
  t.equal(d().result, 'RESULT_FALSE');
  t.equal(su.pins('pins')[2], false, 'too cool: fan off');
  // desiredState vs state: the valve is asked on but held off by delayedOn.
  su.patch('valve', 'DigitalActuator', { storedState: 'STATE_ACTIVE' });
  su.patch('logic', 'ActuatorLogic', { expression: 'b&c' });
  await su.run(200, 100);
  t.equal(d().result, 'RESULT_TRUE', 'desired on, still off');
  t.equal(su.pins('pins')[2], true);
  await su.run(61_000, 100);
  t.equal(d().result, 'RESULT_FALSE', 'valve on: no longer "desired on but off"');
  // An error switches the target off and reports where.
  su.patch('logic', 'ActuatorLogic', { expression: 'b|(a' });
  await su.run(200, 100);
  t.equal(d().result, 'RESULT_MISSING_CLOSE_BRACKET');
  t.equal(d().errorPos, 4);
  su.patch('logic', 'ActuatorLogic', { expression: 'a' });
  await su.run(200, 100);
  t.equal(su.pins('pins')[2], true);
  su.runtime.delete({ id: 'pump' });
  await su.run(200, 100);
  t.equal(d().result, 'RESULT_BLOCK_NOT_FOUND');
  t.equal(su.pins('pins')[2], false, 'a missing block is an error: off');
  // Disabled: result FALSE and the target released.
  su.patch('logic', 'ActuatorLogic', { expression: 'A', enabled: false });
  t.equal(d().result, 'RESULT_FALSE');
  t.equal(su.data('fan').claimedBy, null);
  t.end();
});

t.test('DigitalInput: direct with pulse stretching, inverted, alternating with debounce', async (t) => {
  const su = setup();
  su.create('pins', 'MockPins', {});
  su.create('button', 'DigitalInput', { hwDevice: link('pins'), channel: 4, minActiveTime: 0.5 });
  const pin = (v: boolean) => (su.pins('pins')[3] = v);
  await su.run(100, 20);
  t.equal(su.data('button').state, 'STATE_INACTIVE');
  t.equal(su.data('pins').channels[3].claimedBy, 'button', 'the channel is claimed');
  pin(true);
  await su.run(100, 20);
  t.equal(su.data('button').state, 'STATE_ACTIVE');
  t.equal(su.data('button').hwState, 'STATE_ACTIVE');
  pin(false);
  await su.run(200, 20);
  t.equal(su.data('button').state, 'STATE_ACTIVE', 'a short press is held for minActiveTime');
  t.equal(su.data('button').hwState, 'STATE_INACTIVE');
  await su.run(300, 20);
  t.equal(su.data('button').state, 'STATE_INACTIVE');
  su.patch('button', 'DigitalInput', { invert: true });
  await su.run(40, 20);
  t.equal(su.data('button').state, 'STATE_ACTIVE', 'inverted: a low input is active');
  su.patch('button', 'DigitalInput', { invert: false, behavior: 'ALTERNATING', minActiveTime: 1 });
  await su.run(100, 20);
  const press = async () => {
    pin(true);
    await su.run(100, 20);
    pin(false);
    await su.run(100, 20);
  };
  const before = su.data('button').state;
  await press();
  const first = su.data('button').state;
  t.not(first, before, 'a press toggles');
  await press();
  t.equal(su.data('button').state, first, 'a second press within minActiveTime is ignored (bounce)');
  await su.run(1000, 20);
  await press();
  t.equal(su.data('button').state, before, 'a later press toggles back');
  su.patch('button', 'DigitalInput', { channel: 0 });
  await su.run(40, 20);
  t.equal(su.data('button').state, null, 'no channel: unknown');
  t.equal(su.data('pins').channels[3].claimedBy, null, 'channel released');
  t.end();
});
