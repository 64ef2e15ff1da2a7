// The PID relay autotune where other features meet it (tuning-rig.ts): the pair deleted or
// disabled, the mutex deleted, a rename of the tuned PID, a Setpoint Profile or Driver on the
// setpoint, kp turned round under a proposal, and the setup a proposal was
// measured on changed before its APPLY (input, output, pair relinked; the chain's timings edited;
// a restart or a backup between). Each ends the tuning (or refuses the command) with the reason
// that applies, or is no change to it.
import t from 'tap';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import type { Fermenter } from '../helpers/fermenter.js';
import { command, fermenter, gains, NO_SETUP, runTuning, start, tuneUntilRunningFor, tuning } from './tuning-rig.js';

const PAIR_GONE =
  /^stopped: its pair Cool PID no longer drives the other way on Beer Setpoint \(deleted, disabled or moved\)$/;

t.test('the pair deleted or disabled under a running tuning: the message says so', async (t) => {
  // Its cooler, still on the shared mutex, is then a third actuator there; that is not the news.
  const deleted = fermenter().build();
  await deleted.run(600);
  await tuneUntilRunningFor(t, deleted, 600);
  deleted.runtime.delete({ id: 'Cool PID' });
  await deleted.run(5);
  t.equal(tuning(deleted).state, 'ABORTED');
  t.match(tuning(deleted).message, PAIR_GONE);

  const disabled = fermenter().build();
  await disabled.run(600);
  await tuneUntilRunningFor(t, disabled, 600);
  disabled.runtime.patch({ id: 'Cool PID', type: 'Pid', data: { enabled: false } });
  await disabled.run(5);
  t.equal(tuning(disabled).state, 'ABORTED');
  t.match(tuning(disabled).message, PAIR_GONE);
});

t.test('a mutex that does not exist: START refused, a running tuning stops at once', async (t) => {
  // An actuator whose mutex constraint names no Mutex never switches on: the relay would run
  // for hours on outputs that deliver nothing, then blame the plant.
  const f = fermenter().build();
  await f.run(600);
  await tuneUntilRunningFor(t, f, 600);
  f.runtime.delete({ id: 'Mutex' });
  await f.run(5);
  t.equal(tuning(f).state, 'ABORTED');
  t.match(
    tuning(f).message,
    /^stopped: Heat Actuator's mutex Mutex does not exist, so Heat Actuator never switches on: /,
  );
  t.throws(() => start(f), /cannot start: Heat Actuator's mutex Mutex does not exist/);
  // The constraint turned off on both: nothing in the way.
  for (const id of ['Heat Actuator', 'Cool Actuator'])
    f.runtime.patch({
      id,
      type: 'DigitalActuator',
      data: { constraints: { mutexed: { enabled: false, mutexId: null } } },
    });
  start(f);
  await f.run(5);
  t.equal(tuning(f).state, 'RUNNING', tuning(f).message);
});

t.test('a rename of the tuned PID: its pair stays driven by the tuning', async (t) => {
  // The Cool PID is tuned; its pair, the Heat PID, is older (updated before it in a tick) and
  // follows the tuner's request, kept under the tuner's id.
  const f = fermenter().build();
  await f.run(600);
  f.runtime.patch({ id: 'Cool PID', type: 'Pid', data: { tuning: { command: 'START' } } });
  await f.run(600);
  t.equal(f.data('Heat PID').tuning.tunedBy, 'Cool PID');
  f.runtime.rename({ existing: 'Cool PID', desired: 'Cooler PID' });
  const own: number[] = [];
  await f.run(120, (s) => {
    // The PID's own terms are null while the tuning drives it.
    if (f.data('Heat PID').p !== null) own.push(s.t);
  });
  t.same(own, [], 'the Heat PID never controlled by its own gains');
  t.equal(f.data('Heat PID').tuning.tunedBy, 'Cooler PID');
  t.equal(f.data('Cooler PID').tuning.state, 'RUNNING');
});

t.test(
  'a Setpoint Profile, or a Setpoint Driver, on the setpoint: START refused naming it; one that takes it under a running tuning stops it',
  async (t) => {
    const f = fermenter().build();
    await f.run(600);
    const q = (unit: string, value: number) => ({ __objtype: 'Quantity', unit, value });
    const link = (id: string) => ({ __objtype: 'Link', id });
    // 20 degC for an hour and a half, then down to 18 degC over an hour.
    f.runtime.create({
      id: 'Beer Profile',
      type: 'SetpointProfile',
      data: {
        targetId: link('Beer Setpoint'),
        start: f.clock.wall()! / 1000,
        enabled: false,
        points: [
          { time: q('s', 0), temperature: q('degC', 20) },
          { time: q('s', 5400), temperature: q('degC', 20) },
          { time: q('s', 9000), temperature: q('degC', 18) },
        ],
      },
    });
    await tuneUntilRunningFor(t, f, 600);
    f.runtime.patch({ id: 'Beer Profile', type: 'SetpointProfile', data: { enabled: true } });
    await f.run(5);
    t.equal(tuning(f).state, 'ABORTED');
    t.equal(
      tuning(f).message,
      'stopped: its setpoint Beer Setpoint follows the Setpoint Profile Beer Profile, and a tuning needs a steady setting: disable the profile to tune',
    );
    t.throws(() => start(f), /cannot start: its setpoint Beer Setpoint follows the Setpoint Profile Beer Profile/);

    // A Setpoint Driver (ActuatorOffset) keeping the setpoint at another one's setting plus its own.
    f.runtime.patch({ id: 'Beer Profile', type: 'SetpointProfile', data: { enabled: false } });
    f.runtime.patch({ id: 'Beer Setpoint', type: 'SetpointSensorPair', data: { storedSetting: q('degC', 20) } });
    f.runtime.create({
      id: 'Wort Setpoint',
      type: 'SetpointSensorPair',
      data: { sensorId: link('Beer Sensor'), storedSetting: q('degC', 18), enabled: true },
    });
    await tuneUntilRunningFor(t, f, 60);
    f.runtime.create({
      id: 'Beer Driver',
      type: 'ActuatorOffset',
      data: {
        targetId: link('Beer Setpoint'),
        referenceId: link('Wort Setpoint'),
        storedSetting: q('delta_degC', 2),
        enabled: true,
      },
    });
    await f.run(5);
    t.equal(tuning(f).state, 'ABORTED');
    t.equal(
      tuning(f).message,
      'stopped: its setpoint Beer Setpoint is driven by Beer Driver, and a tuning needs a steady setting: disable Beer Driver to tune',
    );
  },
);

t.test('APPLY of a result measured with the other sign of kp is refused', async (t) => {
  // Proposed for the Heat PID (kp positive); meanwhile it was turned round to cool (kp negative).
  // The heater's gains, sign and all, would then drive the cooler the wrong way.
  const f = fermenter().build();
  await f.run(1800);
  start(f, { cycles: 3 });
  await runTuning(f, 48);
  t.equal(tuning(f).state, 'PROPOSED', tuning(f).message);
  f.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { kp: -10 } });
  t.throws(
    () => command(f, 'APPLY'),
    /cannot apply: the result was measured with kp of Heat PID positive, and it is now negative; DISCARD and tune again/,
  );
  t.same(gains(f, 'Heat PID').kp, -10, 'the gains stay');
  t.equal(tuning(f).state, 'PROPOSED');
  // The pair turned round too: named.
  f.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { kp: 60 } });
  f.runtime.patch({ id: 'Cool PID', type: 'Pid', data: { kp: 10 } });
  t.throws(
    () => command(f, 'APPLY'),
    /cannot apply: the result was measured with kp of its pair Cool PID negative, and it is now positive; DISCARD and tune again/,
  );
  f.runtime.patch({ id: 'Cool PID', type: 'Pid', data: { kp: -60 } });
  command(f, 'APPLY');
  t.equal(tuning(f).state, 'APPLIED');
  t.equal(gains(f, 'Heat PID').kp, tuning(f).result.kp);
});

t.test(
  'the pair disabled while the tuning drives its output: the output is let go, as any disabled PID lets it go',
  async (t) => {
    // The Cool PID is tuned; its pair, the Heat PID, updates first in a tick, while the tuner
    // has not yet seen the disable.
    const f = fermenter().build();
    await f.run(600);
    f.runtime.patch({ id: 'Cool PID', type: 'Pid', data: { tuning: { command: 'START' } } });
    for (let i = 0; i < 100 && !(f.data('Heat PWM').setting > 0); i++) await f.run(60);
    t.ok(f.data('Heat PWM').setting > 0, 'the relay heats');
    f.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { enabled: false } });
    // Seconds with the heater on, after the PWM's current period (10 s) has run out.
    let heated = 0;
    let seconds = 0;
    await f.run(600, (s) => void (heated += ++seconds > 10 && s.heater ? 1 : 0));
    t.equal(f.data('Cool PID').tuning.state, 'ABORTED');
    t.equal(f.data('Heat PWM').claimedBy, null, 'the disabled PID holds no output');
    t.equal(heated, 0, 'the heater is off');
  },
);

t.test(
  'APPLY of a result measured on another setup is refused, naming the change; the same setup applies',
  async (t) => {
    // Proposed for the Heat PID and its pair; then, before the APPLY, a link or a timing of the
    // chain is changed. The gains were measured on the old chain: APPLY must not write them silently.
    const f = fermenter().build();
    await f.run(1800);
    start(f, { cycles: 3 });
    await runTuning(f, 48);
    t.equal(tuning(f).state, 'PROPOSED', tuning(f).message);
    const link = (id: string) => ({ __objtype: 'Link', id });
    const s = (value: number) => ({ __objtype: 'Quantity', unit: 's', value });
    /** The controller restarted on a copy of its database: each change starts from the same proposal. */
    const restarted = () => {
      const copy = new MemoryPersistence();
      copy.records = new Map(f.persistence.records);
      return fermenter({ persistence: copy, beer: f.plant.beer });
    };
    const spareOutput = (g: Fermenter) =>
      g.runtime.create({ id: 'Spare Output', type: 'ActuatorAnalogMock', data: {} });
    const changes: Array<[string, (g: Fermenter) => void, string]> = [
      [
        'input relinked',
        (g) => {
          g.runtime.create({
            id: 'Spare Setpoint',
            type: 'SetpointSensorPair',
            data: { sensorId: link('Beer Sensor'), storedSetting: { __objtype: 'Quantity', unit: 'degC', value: 20 } },
          });
          g.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { inputId: link('Spare Setpoint') } });
        },
        'the input of Heat PID was relinked (now Spare Setpoint)',
      ],
      [
        'output relinked',
        (g) => {
          spareOutput(g);
          g.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { outputId: link('Spare Output') } });
        },
        'the output of Heat PID was relinked (now Spare Output)',
      ],
      [
        "the pair's output relinked",
        (g) => {
          spareOutput(g);
          g.runtime.patch({ id: 'Cool PID', type: 'Pid', data: { outputId: link('Spare Output') } });
        },
        'the output of its pair Cool PID was relinked (now Spare Output)',
      ],
      [
        'the pair deleted',
        (g) => g.runtime.delete({ id: 'Cool PID' }),
        'its pair Cool PID no longer drives the other way on Beer Setpoint (deleted, disabled or moved)',
      ],
      [
        'another pair',
        (g) => {
          spareOutput(g);
          g.runtime.patch({ id: 'Cool PID', type: 'Pid', data: { enabled: false } });
          g.runtime.create({
            id: 'Fan PID',
            type: 'Pid',
            data: {
              inputId: link('Beer Setpoint'),
              outputId: link('Spare Output'),
              kp: { __objtype: 'Quantity', unit: '1/degC', value: -5 },
              enabled: true,
            },
          });
        },
        'its pair is now Fan PID, not Cool PID',
      ],
      [
        'a PWM period',
        (g) => g.runtime.patch({ id: 'Heat PWM', type: 'ActuatorPwm', data: { period: s(300) } }),
        'the PWM period of Heat PWM changed from 10 s to 300 s',
      ],
      [
        'a minimum on time',
        (g) =>
          g.runtime.patch({
            id: 'Cool Actuator',
            type: 'DigitalActuator',
            data: { constraints: { minOn: { duration: s(180), enabled: true } } },
          }),
        'the minimum on time of Cool Actuator changed from 60 s to 180 s',
      ],
      [
        'a minimum off time turned off',
        (g) =>
          g.runtime.patch({
            id: 'Cool Actuator',
            type: 'DigitalActuator',
            data: { constraints: { minOff: { duration: s(300), enabled: false } } },
          }),
        'the minimum off time of Cool Actuator changed from 300 s to off',
      ],
      [
        'the mutex hold time',
        (g) =>
          g.runtime.patch({
            id: 'Heat Actuator',
            type: 'DigitalActuator',
            data: { constraints: { mutexed: { mutexId: link('Mutex'), extraHoldTime: s(60), enabled: true } } },
          }),
        'the mutex hold time of Heat Actuator changed from 600 s to 60 s',
      ],
    ];
    for (const [what, change, says] of changes) {
      const g = restarted();
      change(g);
      const heat = gains(g, 'Heat PID');
      t.throws(
        () => command(g, 'APPLY'),
        {
          message: `data.tuning.command: cannot apply: since the result was measured, ${says}; DISCARD and tune again`,
        },
        what,
      );
      t.same(gains(g, 'Heat PID'), heat, `${what}: the gains stay`);
      t.equal(tuning(g).state, 'PROPOSED', `${what}: the result still waits`);
    }

    // The same setup after a restart: the proposal applies.
    const same = restarted();
    t.ok(
      tuning(same).result.inputNid > 0 && tuning(same).result.setup.length > 0,
      'the setup is stored with the result',
    );
    command(same, 'APPLY');
    t.equal(tuning(same).state, 'APPLIED', tuning(same).message);
    t.equal(gains(same, 'Heat PID').kp, tuning(f).result.kp);

    // Renames are no change (the setup is kept by nid); a timing put back makes it applicable again.
    const renamed = restarted();
    for (const [existing, desired] of [
      ['Heat PWM', 'Heater PWM'],
      ['Cool Actuator', 'Compressor'],
      ['Mutex', 'Fridge Mutex'],
      ['Cool PID', 'Cooler PID'],
    ])
      renamed.runtime.rename({ existing, desired });
    renamed.runtime.patch({ id: 'Heater PWM', type: 'ActuatorPwm', data: { period: s(300) } });
    t.throws(() => command(renamed, 'APPLY'), /the PWM period of Heater PWM changed from 10 s to 300 s/);
    renamed.runtime.patch({ id: 'Heater PWM', type: 'ActuatorPwm', data: { period: s(10) } });
    command(renamed, 'APPLY');
    t.equal(tuning(renamed).state, 'APPLIED', tuning(renamed).message);

    // A proposal stored by a version that recorded no setup cannot be checked: refused, even
    // over the setup it was measured on.
    const older = restarted();
    const nid = older.block('Heat PID').nid;
    const record = older.persistence.records.get(nid)!;
    const stored = JSON.parse(record.data);
    for (const k of ['inputNid', 'outputNid', 'pairOutputNid', 'setup']) delete stored.tuning.result[k];
    const copy = new MemoryPersistence();
    copy.records = new Map(older.persistence.records);
    copy.records.set(nid, { ...record, data: JSON.stringify(stored) });
    const upgraded = fermenter({ persistence: copy, beer: f.plant.beer });
    t.equal(tuning(upgraded).result.inputNid, null, 'no setup recorded');
    const before = gains(upgraded, 'Heat PID');
    t.throws(() => command(upgraded, 'APPLY'), { message: `data.tuning.command: ${NO_SETUP}` });
    t.same(gains(upgraded, 'Heat PID'), before, 'the gains stay');
    t.equal(tuning(upgraded).state, 'PROPOSED', 'the result still waits');
    command(upgraded, 'DISCARD');
    t.equal(tuning(upgraded).state, 'IDLE', 'DISCARD takes it');

    // A backup carries it: loaded over a changed chain, the chain and the proposal come back together.
    const saved = JSON.parse(JSON.stringify(f.runtime.backupSave()));
    const loaded = restarted();
    loaded.runtime.patch({ id: 'Heat PWM', type: 'ActuatorPwm', data: { period: s(300) } });
    const load = await loaded.runtime.backupLoad(saved);
    t.same(load.messages, [], 'a clean load');
    const setupOf = (r: Record<string, unknown>) =>
      Object.fromEntries(['inputNid', 'outputNid', 'pairNid', 'pairOutputNid', 'setup'].map((k) => [k, r[k]]));
    t.same(setupOf(tuning(loaded).result), setupOf(tuning(f).result), 'the result, with its setup');
    command(loaded, 'APPLY');
    t.equal(tuning(loaded).state, 'APPLIED', tuning(loaded).message);

    // And without a restart.
    command(f, 'APPLY');
    t.equal(tuning(f).state, 'APPLIED', tuning(f).message);

    // UNDO puts the gains from before the tuning back. Over the applied gains, that is all it says;
    // over gains edited by hand since, it names those, so they are not lost without a trace.
    command(same, 'UNDO');
    t.match(tuning(same).message, /^undone: back to kp 60, ti 7200 s, td 900 s \(and Cool PID's\)$/);
    f.runtime.patch({ id: 'Cool PID', type: 'Pid', data: { kp: -45 } });
    const cool = gains(f, 'Cool PID');
    command(f, 'UNDO');
    t.equal(gains(f, 'Cool PID').kp, -60, 'the gains from before the tuning are back');
    t.equal(
      tuning(f).message,
      `undone: back to kp 60, ti 7200 s, td 900 s (and Cool PID's); the gains it replaced, changed by hand since the APPLY: Cool PID kp -45, ti ${cool.ti} s, td ${cool.td} s`,
    );
  },
);
