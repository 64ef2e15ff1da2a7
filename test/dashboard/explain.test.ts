// The words of the dashboard's cards (web/src/explain.ts) and profile steps (web/src/profile-steps.ts),
// on block JSON as the public API sends it: who drives an output, what holds it back and for
// how long, which actuator waits for a mutex and who holds it; steps ↔ profile points.
import t from 'tap';
import type { Block } from '../../web/src/api.js';
import { garbledDevices, headline, problemsOf } from '../../web/src/blocks.js';
import { fieldLabel, isMadeUpName, mutexStory, outputStory } from '../../web/src/explain.js';
import { segmentsOf, settingAt, stepsToPoints, whereIsIt } from '../../web/src/profile-steps.js';

const link = (id: string | null) => ({ __objtype: 'Link' as const, type: 'Any', id });
const sec = (value: number) => ({ __objtype: 'Quantity' as const, unit: 'second', value });
const temp = (value: number | null) => ({ __objtype: 'Quantity' as const, unit: 'degC', value });
const block = (id: string, type: string, data: Record<string, unknown>): Block => ({ id, type, data });

const mutex = block('Mutex', 'Mutex', { waitRemaining: sec(40) });
const heater = block('Heater', 'DigitalActuator', {
  state: 'STATE_INACTIVE',
  desiredState: 'STATE_ACTIVE',
  storedState: 'STATE_INACTIVE',
  claimedBy: link('Heat PWM'),
  constraints: { mutexed: { mutexId: link('Mutex'), hasLock: false, limiting: true, remaining: sec(40) } },
});
const cooler = block('Cooler', 'DigitalActuator', {
  state: 'STATE_ACTIVE',
  desiredState: 'STATE_ACTIVE',
  storedState: 'STATE_ACTIVE',
  claimedBy: link(null),
  constraints: {
    mutexed: { mutexId: link('Mutex'), hasLock: true, limiting: false, remaining: sec(0) },
    minOn: { duration: sec(300), limiting: false },
  },
});
const pwm = block('Heat PWM', 'ActuatorPwm', {
  value: 0,
  setting: 60,
  enabled: true,
  claimedBy: link('Heat PID'),
  actuatorId: link('Heater'),
});
const all = new Map([mutex, heater, cooler, pwm].map((b) => [b.id, b]));

t.test(
  'a claimed output names its driver, what it wants and which mutex holds it back, by whom, how long',
  async (t) => {
    const s = outputStory(heater, all);
    t.equal(s.driver, 'Heat PWM');
    t.equal(s.doing, 'off, wants on');
    t.same(s.why, ['Driven by Heat PWM (0 %).', 'Waiting 40 s for Mutex, held by Cooler.']);
  },
);

t.test('a free output says it is switched by hand and names a limiting timing constraint in words', async (t) => {
  const fan = block('Fan', 'DigitalActuator', {
    state: 'STATE_INACTIVE',
    desiredState: 'STATE_ACTIVE',
    storedState: 'STATE_ACTIVE',
    claimedBy: link(null),
    constraints: { delayedOn: { duration: sec(600), limiting: true, remaining: sec(590) } },
  });
  const s = outputStory(fan, all);
  t.equal(s.driver, null);
  t.equal(s.doing, 'off, wants on');
  t.same(s.why, ['Switched by hand: on.', 'Waiting 9 min 50 s for the delay before switching on.']);
  t.same(outputStory(cooler, all).why, ['Switched by hand: on.'], 'a constraint that does not limit is not mentioned');
});

t.test('a PWM below its setting says so and who drives it', async (t) => {
  const s = outputStory(pwm, all);
  t.equal(s.doing, '0 %, wants 60 %');
  t.match(s.why[0], /^Driven by Heat PID/);
});

t.test('a mutex says who holds it and which actuator waits for how long', async (t) => {
  t.same(mutexStory(mutex, all), { holder: 'Cooler', waiting: ['Heater waits 40 s'], headline: 'Heater waits 40 s' });
  const free = new Map([['Mutex', mutex]]);
  t.same(mutexStory(mutex, free), { holder: null, waiting: [], headline: 'free' }, 'nobody holds it: free');
  const held = new Map([mutex, cooler].map((b) => [b.id, b]));
  t.equal(mutexStory(mutex, held).headline, 'held by Cooler', 'held while its holder is on, nobody waits');
  const offCooler = { ...cooler, data: { ...cooler.data, state: 'STATE_INACTIVE' } };
  t.equal(
    mutexStory(mutex, new Map([mutex, offCooler].map((b) => [b.id, b]))).headline,
    'held by Cooler, 40 s more',
    'a holder that switched off keeps it for its extra hold time',
  );
  t.equal(headline(mutex), '', 'the mutex setting alone is no headline ("wait 10 min" while nothing waits)');
});

t.test('a PID headlines its input, setting and output together', async (t) => {
  const pid = block('Heat PID', 'Pid', {
    enabled: true,
    inputValue: temp(19.26),
    inputSetting: temp(20),
    outputValue: 42.4,
  });
  t.equal(headline(pid), '19.3 °C → 20.0 °C · out 42 %');
  t.equal(headline({ ...pid, data: { ...pid.data, enabled: false } }), 'disabled');
});

t.test('field labels are words, made-up sensor names are recognised', async (t) => {
  t.equal(fieldLabel('storedSetting'), 'Setting');
  t.equal(fieldLabel('minOff'), 'Minimum off time');
  t.equal(fieldLabel('filterThreshold'), 'Filter threshold');
  t.equal(fieldLabel('sensorId'), 'Sensor');
  t.ok(isMadeUpName('Sensor b001'));
  t.ok(isMadeUpName('OneWire Temp Sensor 00000000b001'), 'and the long form of older versions');
  t.ok(isMadeUpName('Sensor 1'));
  t.notOk(isMadeUpName('Beer Sensor'));
});

t.test('profile steps become points, and the position in them is told in words', async (t) => {
  const points = stepsToPoints([
    { temperature: 19, days: 5, rampDays: 0 },
    { temperature: 21, days: 3, rampDays: 1 },
  ]);
  const DAY = 86400;
  t.same(points, [
    { time: 0, temperature: 19 },
    { time: 5 * DAY, temperature: 19 },
    { time: 6 * DAY, temperature: 21 },
    { time: 9 * DAY, temperature: 21 },
  ]);
  const segs = segmentsOf(
    points.map((p) => ({ time: sec(p.time), temperature: temp(p.temperature) })),
    'degC',
  );
  t.same(
    segs.map((s) => s.text),
    ['hold 19 °C for 5.0 d', 'ramp 19 → 21 °C over 24.0 h', 'hold 21 °C for 3.0 d'],
  );
  const w = whereIsIt(segs, 5.5 * DAY);
  t.equal(w.index, 1);
  t.equal(w.now, 'step 2 of 3: ramp 19 → 21 °C over 24.0 h, 12.0 h left');
  t.equal(w.next, 'hold 21 °C for 3.0 d');
  t.equal(whereIsIt(segs, 10 * DAY).now, 'finished: holding 21');
  // Points in another order (any API client may write them so; the controller sorts them by time,
  // shared/profile.ts): the card tells the same steps, not "no steps" or a profile finished.
  const shuffled = [points[2]!, points[0]!, points[3]!, points[1]!];
  const again = segmentsOf(
    shuffled.map((p) => ({ time: sec(p.time), temperature: temp(p.temperature) })),
    'degC',
  );
  t.same(
    again.map((s) => s.text),
    segs.map((s) => s.text),
    'points out of order: the same steps',
  );
  t.equal(whereIsIt(again, 5.5 * DAY).index, 1);
  // The setting Pause and Stop leave the setpoint when the card has not had the controller's yet
  // (a profile stopped in its first second): the controller's own rule, on the points as served.
  const served = shuffled.map((p) => ({ time: sec(p.time), temperature: temp(p.temperature) }));
  t.equal(settingAt(served, 2 * DAY), 19, 'in a hold');
  t.equal(settingAt(served, 5.5 * DAY), 20, 'half-way up a ramp');
  t.equal(settingAt(served, 10 * DAY), 21, 'finished: the last temperature');
  t.equal(settingAt(served, -60), null, 'not started: it drives nothing');
});

t.test('a block whose driver let go says it is inactive and how to take over', async (t) => {
  const pair = block('Beer Setpoint', 'SetpointSensorPair', {
    settingMode: 'CLAIMED',
    claimedBy: link(null),
    value: temp(19),
    setting: temp(null),
  });
  t.match(
    problemsOf(pair, 'setpoint', () => true).map((p) => p.text),
    [/^inactive since the block that drove it let go: set it by hand to take over$/],
  );
  const relay = block('Heater', 'DigitalActuator', {
    settingMode: 'CLAIMED',
    claimedBy: link(null),
    storedState: 'STATE_ACTIVE',
  });
  t.match(problemsOf(relay, 'output', () => true)[0]?.text, /switch it by hand to take over/);
  t.same(
    problemsOf({ ...relay, data: { ...relay.data, claimedBy: link('Heat PWM') } }, 'output', () => true),
    [],
  );
});

t.test('a link to a deleted block is a problem wherever it is in the block', async (t) => {
  const exists = (id: string) => id === 'Fridge Sensor';
  const b = block('Heater', 'DigitalActuator', {
    claimedBy: { ...link('Gone PWM'), readonly: true },
    hwDevice: link('Fridge Sensor'),
    constraints: { mutexed: { mutexId: link('Gone Mutex'), enabled: true } },
    channels: [{ id: 1, device: link('Gone Chip') }],
  });
  t.same(
    problemsOf(b, 'output', exists, fieldLabel).map((p) => p.text),
    ['Constraints › Mutex links to missing block "Gone Mutex"', 'Channels › Device links to missing block "Gone Chip"'],
    'nested links named by their place; a read-only link (the controller’s own account) is not a setting',
  );
});

t.test('a 1-Wire board that answers with garbled replies is not said to be disconnected', async (t) => {
  // system/status (and the event stream's status) as a533c85 sends it: garbled within missing.
  const status = {
    hardware: { onewire: { missing: ['2901d00000000011', '28b1000000000022'], garbled: ['2901d00000000011'] } },
  };
  const garbled = garbledDevices(status);
  const board = block('DS2408 0000000000d1', 'DS2408', { address: '2901d00000000011', connected: false });
  t.same(
    problemsOf(board, 'io', () => true, fieldLabel, garbled).map((p) => p.text),
    ['device answers but its replies fail their checks (CRC): a noisy bus, a long cable or a failing chip'],
  );
  t.equal(problemsOf(board, 'io', () => true, fieldLabel, garbled)[0]?.level, 'error', 'still an error');
  const gone = block('DS2413 0000000000e1', 'DS2413', { address: '28b1000000000022', connected: false });
  t.same(
    problemsOf(gone, 'io', () => true, fieldLabel, garbled).map((p) => p.text),
    ['device disconnected'],
    'one no bus answers for is disconnected',
  );
  t.same(
    problemsOf(board, 'io', () => true).map((p) => p.text),
    ['device disconnected'],
    'without the status',
  );
  t.same([...garbledDevices({})], [], 'a status without the list: none');
  t.same([...garbledDevices({ hardware: { onewire: { garbled: 'x' } } })], [], 'nor a malformed one');
});
