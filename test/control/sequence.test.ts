import t from 'tap';
import {
  formatDuration,
  formatInstruction,
  parseDuration,
  parseInstruction,
} from '../../src/blocks/shared/sequence-syntax.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { link, setup } from './setup.js';

class SwitchableClock extends ManualClock {
  valid = true;
  override wall(): number | null {
    return this.valid ? super.wall() : null;
  }
}

/** A sensor, a setpoint on it, a digital actuator on MockPins. */
function plant(su: ReturnType<typeof setup>) {
  su.create('Pins', 'MockPins', {});
  su.create('sensor', 'TempSensorExternal', { setting: 20, timeout: 0 });
  su.create('sp', 'SetpointSensorPair', {
    sensorId: link('sensor'),
    storedSetting: 10,
    enabled: true,
    filter: 'FILTER_NONE',
  });
  su.create('out', 'DigitalActuator', { hwDevice: link('Pins'), channel: 3 });
}

t.test('instruction syntax: parsing, normalising, positions of errors', async (t) => {
  const ok = parseInstruction('  SET_SETPOINT target=Beer Setpoint,setting=104F  ');
  t.ok('instruction' in ok);
  if ('instruction' in ok) t.equal((ok.instruction.args.setting as { value: number }).value, 40, 'F converted to degC');
  t.equal(parseDuration('1h30m10s'), 5410);
  t.equal(parseDuration('2d'), 172800);
  t.equal(parseDuration('1h 30m'), null, 'no spaces inside a duration');
  t.equal(formatDuration(93784), '1d2h3m4s');
  const unknown = parseInstruction('SET_SETPIONT target=sp, setting=20C');
  t.match(unknown, { error: { pos: 0, message: /unknown instruction 'SET_SETPIONT'/ } });
  const badValue = parseInstruction('SET_SETPOINT target=sp, setting=20');
  t.match(badValue, { error: { pos: 32, message: /setting: expected a temperature with unit/ } });
  const badKey = parseInstruction('WAIT_DURATION time=10s');
  t.match(badKey, { error: { pos: 14, message: /WAIT_DURATION has no argument 'time'; it takes duration/ } });
  t.match(parseInstruction('WAIT_TEMP_ABOVE target=sensor'), { error: { message: /needs value/ } });
  t.match(parseInstruction('SET_DIGITAL target=out, setting=maybe'), {
    error: { message: /expected one of STATE_INACTIVE/ },
  });
  t.match(parseInstruction('WAIT_DURATION duration=$bad name'), { error: { message: /invalid variable name/ } });
  t.end();
});

t.test('lines are normalised on write; a bad line is stored with its error and nothing runs', async (t) => {
  const su = setup();
  plant(su);
  su.create('seq', 'Sequence', {
    instructions: [
      '   # This is a comment    ',
      'SET_SETPOINT target=sp, setting=40C',
      'SET_DIGITAL target=out, setting=ACTIVE',
      'WAIT_DURATION duration=90m',
      'WAIT_SETPOINT target=sp,precision=0.25dC',
    ],
  });
  const out = su.runtime.read({ id: 'seq' }).json().data as Record<string, any>;
  t.same(out.instructions, [
    '# This is a comment',
    'SET_SETPOINT target=sp, setting=40.0C',
    'SET_DIGITAL target=out, setting=STATE_ACTIVE',
    'WAIT_DURATION duration=1h30m',
    'WAIT_SETPOINT target=sp, precision=0.25dC',
  ]);
  t.equal(su.data('sp').storedSetting, 40, 'the SET chain ran within the write');
  t.equal(su.data('out').storedState, 'STATE_ACTIVE');
  t.equal(out.activeInstruction, 3);
  t.equal(out.status, 'WAITING');

  su.create('broken', 'Sequence', {
    instructions: ['SET_SETPOINT target=sp, setting=30C', 'WAIT_DURATION duration=ten minutes'],
  });
  await su.run(1000);
  const b = su.data('broken');
  t.equal(su.data('sp').storedSetting, 40, 'a sequence with a bad line runs none of its lines');
  t.equal(b.status, 'ERROR');
  t.equal(b.error, 'INVALID_ARGUMENT');
  t.equal(b.errorInstruction, 1);
  t.equal(b.errorPos, 23);
  t.match(b.errorMessage, /instruction 2: duration: expected a duration/);
  t.same(b.instructions[1], 'WAIT_DURATION duration=ten minutes', 'the bad line is kept as written');
  su.patch('broken', 'Sequence', {
    instructions: ['SET_SETPOINT target=sp, setting=30C', 'WAIT_DURATION duration=10m'],
  });
  await su.run(200);
  t.equal(su.data('sp').storedSetting, 30, 'fixed: it runs');
  t.equal(su.data('broken').error, 'NONE');
  t.equal(su.data('broken').errorMessage, '');
  t.end();
});

t.test('WAIT_DURATION excludes paused time; disabled mid-sequence is PAUSED', async (t) => {
  const su = setup();
  plant(su);
  su.create('seq', 'Sequence', {
    instructions: ['WAIT_DURATION duration=10m', 'SET_DIGITAL target=out, setting=STATE_ACTIVE'],
  });
  t.equal(su.data('seq').status, 'WAITING');
  await su.run(5 * 60_000, 1000);
  t.equal(su.data('seq').elapsed, 300);
  su.patch('seq', 'Sequence', { enabled: false });
  await su.run(20 * 60_000, 1000);
  t.equal(su.data('seq').status, 'PAUSED');
  t.equal(su.data('seq').elapsed, 300, 'the clock stopped while paused');
  t.equal(su.data('out').storedState, 'STATE_INACTIVE');
  su.patch('seq', 'Sequence', { enabled: true });
  await su.run(4 * 60_000, 1000);
  t.equal(su.data('out').storedState, 'STATE_INACTIVE', '9 of 10 minutes active: still waiting');
  await su.run(61_000, 1000);
  t.equal(su.data('out').storedState, 'STATE_ACTIVE', 'done after 10 active minutes');
  t.equal(su.data('seq').status, 'END');
  t.equal(su.data('seq').activeInstruction, 2);

  su.create('idle', 'Sequence', { enabled: false, instructions: ['WAIT'] });
  await su.run(100);
  t.equal(su.data('idle').status, 'DISABLED', 'disabled before it started');
  t.end();
});

t.test('wall-time rules: WAIT_UNTIL, START_PROFILE and WAIT_PROFILE need the clock', async (t) => {
  const clock = new SwitchableClock(0);
  const su = setup({ clock });
  plant(su);
  const wall0 = Math.floor(clock.wall()! / 1000);
  su.create('profile', 'SetpointProfile', {
    targetId: link('sp'),
    points: [
      { time: 0, temperature: 20 },
      { time: 600, temperature: 30 },
    ],
  });
  clock.valid = false;
  const until = new Date((wall0 + 3600) * 1000).toISOString();
  su.create('seq', 'Sequence', {
    instructions: [
      `WAIT_UNTIL time=${until}`,
      'START_PROFILE target=profile',
      'WAIT_PROFILE target=profile',
      'SET_DIGITAL target=out, setting=STATE_ACTIVE',
    ],
  });
  await su.run(1000);
  t.equal(su.data('seq').status, 'ERROR');
  t.equal(su.data('seq').error, 'SYSTEM_TIME_NOT_AVAILABLE');
  clock.valid = true;
  await su.run(1000);
  t.equal(su.data('seq').status, 'WAITING', 'the error clears itself once the clock is back');
  t.equal(su.data('seq').error, 'NONE');
  await su.run(3600_000 - 3000, 1000);
  t.equal(su.data('seq').activeInstruction, 0, 'not before the time');
  await su.run(2000, 1000);
  t.equal(su.data('seq').activeInstruction, 2, 'at the time: the profile is started and waited for');
  t.equal(su.data('profile').start, wall0 + 3600);
  await su.run(597_000, 1000);
  t.equal(su.data('out').storedState, 'STATE_INACTIVE');
  await su.run(3000, 1000);
  t.equal(su.data('out').storedState, 'STATE_ACTIVE', 'after the last point of the profile');
  t.end();
});

t.test('variables: resolved on every check, errors for undefined and mistyped ones', async (t) => {
  const su = setup();
  plant(su);
  su.create('vars', 'Variables', {
    variables: { target: { link: link('sp') }, wait: { duration: { __objtype: 'Quantity', value: 10, unit: 'min' } } },
  });
  su.create('seq', 'Sequence', {
    variablesId: link('vars'),
    instructions: [
      'SET_SETPOINT target=$target, setting=$temp',
      'WAIT_DURATION duration=$wait',
      'SET_DIGITAL target=out, setting=$state',
    ],
  });
  t.equal(su.data('seq').error, 'UNDEFINED_VARIABLE');
  su.runtime.patch({ id: 'vars', type: 'Variables', data: { variables: { temp: { analog: 20 } } } });
  await su.run(200);
  t.equal(su.data('seq').error, 'INVALID_VARIABLE', 'an analog where a temperature is needed');
  su.runtime.patch({
    id: 'vars',
    type: 'Variables',
    data: { variables: { temp: { temp: { __objtype: 'Quantity', value: 68, unit: 'degF' } } } },
  });
  await su.run(200);
  t.equal(su.data('sp').storedSetting, 20);
  t.equal(su.data('seq').activeInstruction, 1);
  t.same(Object.keys(su.data('vars').variables).sort(), ['target', 'temp', 'wait'], 'a patch merges by name');
  await su.run(5 * 60_000, 1000);
  su.runtime.patch({
    id: 'vars',
    type: 'Variables',
    data: { variables: { wait: { duration: { __objtype: 'Quantity', value: 6, unit: 'min' } } } },
  });
  await su.run(59_000, 1000);
  t.equal(su.data('seq').activeInstruction, 1, 'a changed variable does not restart the timer: 5 + 1 min < 6 min');
  await su.run(2000, 1000);
  t.equal(su.data('seq').activeInstruction, 2, 'and counts from the instruction start');
  t.equal(su.data('seq').error, 'UNDEFINED_VARIABLE');
  su.runtime.patch({
    id: 'vars',
    type: 'Variables',
    data: { variables: { state: { digital: 'STATE_ACTIVE' }, temp: { empty: true } } },
  });
  await su.run(200);
  t.equal(su.data('out').storedState, 'STATE_ACTIVE');
  t.notOk('temp' in su.data('vars').variables, 'writing empty deletes a name');
  t.throws(
    () => su.runtime.patch({ id: 'vars', type: 'Variables', data: { variables: { 'bad name': { analog: 1 } } } }),
    { kind: 'invalid', message: /bad name/ },
  );
  t.throws(
    () =>
      su.runtime.patch({
        id: 'vars',
        type: 'Variables',
        data: { variables: { two: { analog: 1, digital: 'STATE_ACTIVE' } } },
      }),
    { kind: 'invalid', message: /exactly one/ },
  );
  const stored = su.runtime.read({ id: 'vars' }, 'stored').json().data as Record<string, any>;
  t.same(stored.variables.target, { link: { __objtype: 'Link', __bloxtype: 'Link', type: 'Any', id: 'sp' } });
  t.end();
});

t.test(
  'SET_SETPOINT outside the setpoint range is refused, as REST refuses it, and the setpoint survives a restart',
  async (t) => {
    t.match(parseInstruction('SET_SETPOINT target=sp, setting=650F'), {
      error: { pos: 32, message: "setting: a setpoint must be between -40.0F and 302.0F, got '650F'" },
    });
    t.match(parseInstruction('SET_SETPOINT target=sp, setting=-50C'), {
      error: { message: /between -40.0C and 150.0C/ },
    });
    t.ok('instruction' in parseInstruction('WAIT_TEMP_ABOVE target=sensor, value=650F'), 'a sensor may read anything');
    const persistence = new MemoryPersistence();
    const su = setup({ persistence });
    plant(su);
    su.create('vars', 'Variables', {
      variables: { crash: { temp: { __objtype: 'Quantity', value: 650, unit: 'degF' } } },
    });
    su.create('seq', 'Sequence', {
      variablesId: link('vars'),
      instructions: ['SET_SETPOINT target=sp, setting=650F', 'SET_SETPOINT target=sp, setting=$crash'],
    });
    t.equal(su.data('seq').error, 'INVALID_ARGUMENT', 'the literal: the line does not parse');
    su.patch('seq', 'Sequence', { instructions: ['SET_SETPOINT target=sp, setting=$crash'], overrideState: true });
    await su.run(70_000, 1000);
    t.equal(su.data('seq').status, 'ERROR');
    t.equal(su.data('seq').error, 'INVALID_ARGUMENT', 'a variable out of range');
    t.equal(su.data('sp').storedSetting, 10, 'the setpoint keeps its setting');
    const again = setup({ persistence });
    t.equal(again.data('sp').storedSetting, 10, 'and is there after a restart');
    t.end();
  },
);

t.test('override, instruction edits, RESTART pause, START/WAIT_SEQUENCE, target errors', async (t) => {
  const su = setup();
  plant(su);
  su.create('seq', 'Sequence', {
    instructions: ['WAIT', 'SET_DIGITAL target=out, setting=STATE_ACTIVE', 'WAIT', 'RESTART'],
  });
  await su.run(1000);
  t.equal(su.data('seq').activeInstruction, 0);
  su.patch('seq', 'Sequence', { activeInstruction: 2 });
  t.equal(su.data('seq').activeInstruction, 0, 'activeInstruction is only taken with overrideState');
  su.patch('seq', 'Sequence', { activeInstruction: 1, overrideState: true });
  t.equal(su.data('out').storedState, 'STATE_ACTIVE');
  t.equal(su.data('seq').activeInstruction, 2);
  t.equal(su.data('seq').overrideState, false);
  su.patch('seq', 'Sequence', {
    instructions: [
      'WAIT',
      'SET_DIGITAL target=out, setting=STATE_ACTIVE',
      'WAIT',
      'SET_DIGITAL target=out, setting=STATE_INACTIVE',
      'RESTART',
    ],
  });
  t.equal(su.data('seq').activeInstruction, 2, 'same opcodes up to the position: it stays');
  su.patch('seq', 'Sequence', {
    instructions: [
      'WAIT_DURATION duration=1s',
      'SET_DIGITAL target=out, setting=STATE_ACTIVE',
      'WAIT',
      'SET_DIGITAL target=out, setting=STATE_INACTIVE',
      'RESTART',
    ],
  });
  t.equal(su.data('seq').activeInstruction, 0, 'an opcode before the position changed: restart');
  su.patch('seq', 'Sequence', { activeInstruction: 3, overrideState: true });
  t.equal(su.data('out').storedState, 'STATE_INACTIVE');
  t.equal(su.data('seq').status, 'RESTART');
  t.equal(su.data('seq').activeInstruction, 0);
  await su.run(900);
  t.equal(su.data('seq').status, 'RESTART', 'RESTART pauses 1 s');
  await su.run(1200);
  t.equal(su.data('seq').status, 'WAITING');

  su.create('child', 'Sequence', { instructions: ['WAIT_DURATION duration=30s'] });
  await su.run(31_000, 1000);
  t.equal(su.data('child').status, 'END');
  su.create('parent', 'Sequence', {
    instructions: [
      'START_SEQUENCE target=child',
      'WAIT_SEQUENCE target=child',
      'SET_SETPOINT target=sp, setting=15C',
      'SET_SETPOINT target=ghost, setting=16C',
    ],
  });
  await su.run(1000, 1000);
  t.equal(su.data('child').activeInstruction, 0, 'START_SEQUENCE restarts the target');
  t.equal(su.data('parent').activeInstruction, 1);
  await su.run(30_000, 1000);
  t.equal(su.data('sp').storedSetting, 15, 'WAIT_SEQUENCE ends when the target reaches END');
  t.equal(su.data('parent').error, 'INVALID_TARGET');
  t.equal(su.data('parent').errorInstruction, 3);
  su.create('ghost', 'SetpointSensorPair', { sensorId: link('sensor'), storedSetting: 10, enabled: false });
  await su.run(1000, 1000);
  t.equal(su.data('parent').error, 'DISABLED_TARGET');
  su.patch('ghost', 'SetpointSensorPair', { enabled: true });
  await su.run(1000, 1000);
  t.equal(su.data('ghost').storedSetting, 16, 'the retried instruction succeeds once the cause is fixed');
  t.equal(su.data('parent').status, 'END');
  t.end();
});

t.test('progress is persisted after 60 s in one instruction; the store mode applies at restore', async (t) => {
  const persistence = new MemoryPersistence();
  const su = setup({ persistence });
  plant(su);
  su.create('seq', 'Sequence', {
    instructions: ['SET_SETPOINT target=sp, setting=33C', 'WAIT_DURATION duration=5m', 'WAIT'],
  });
  const storedSp = () => JSON.parse(persistence.records.get(su.block('sp').nid)!.data).storedSetting.value;
  const storedSeq = () => JSON.parse(persistence.records.get(su.block('seq').nid)!.data);
  t.equal(storedSp(), 10, 'fast SET chains are not written at once');
  await su.run(61_000, 1000);
  t.equal(storedSp(), 33, 'after 60 s the changed blocks are persisted');
  t.equal(storedSeq().activeInstruction, 1);
  await su.run(300_000, 1000);
  await su.run(61_000, 1000);
  t.equal(storedSeq().activeInstruction, 2);

  su.patch('seq', 'Sequence', { enabled: false, storeMode: 'AT_RESTORE_INSTRUCTION_ALWAYS_ENABLED' });
  const again = setup({ persistence });
  t.equal(again.data('seq').activeInstruction, 2, 'resumes at the restored instruction');
  t.equal(again.data('seq').enabled, true, 'and is enabled whatever was stored');
  again.patch('seq', 'Sequence', { storeMode: 'AT_FIRST_INSTRUCTION_NEVER_ENABLED' });
  const third = setup({ persistence });
  t.equal(third.data('seq').activeInstruction, 0);
  t.equal(third.data('seq').enabled, false);
  t.end();
});

t.test(
  'a number a line could not show again, or a temperature below absolute zero, is refused naming it',
  async (t) => {
    for (const line of [
      'WAIT_TEMP_ABOVE target=x, value=100000000000000000000000C',
      'WAIT_TEMP_BELOW target=x, value=-300C',
      'WAIT_SETPOINT target=x, precision=100000000000000000000000dC',
      'SET_PWM target=x, setting=100000000000000000000000',
    ]) {
      const r = parseInstruction(line);
      t.match(r, { error: { message: /^(value|precision|setting): .*(between|absolute zero).*got/ } }, line);
    }
    for (const line of [
      'WAIT_TEMP_BETWEEN target=x, lower=-273.15C, upper=1000000000C',
      'WAIT_SETPOINT target=x, precision=1000000000dF',
      'SET_PWM target=x, setting=-1000000000',
      'WAIT_DURATION duration=2147483648ms',
      'WAIT_UNTIL time=2106-02-07T06:28:15Z',
    ]) {
      const first = parseInstruction(line);
      if (!('instruction' in first)) {
        t.fail(`${line}: ${first.error.message}`);
        continue;
      }
      const again = formatInstruction(first.instruction);
      t.ok('instruction' in parseInstruction(again), `${line} is written back as ${again}, which parses`);
    }
    t.end();
  },
);
