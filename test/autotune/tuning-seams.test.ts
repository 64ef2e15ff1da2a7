// The PID relay autotune where other features meet it (tuning-rig.ts): the pair deleted or
// disabled, the mutex deleted, a rename of the tuned PID, a Setpoint Profile and a wall-clock
// jump under a running tuning, and kp turned round under a proposal. Each ends the tuning (or
// refuses the command) with the reason that applies, or is no change to it.
import t from 'tap';
import { command, fermenter, gains, runTuning, start, tuneUntilRunningFor, tuning } from './tuning-rig.js';

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
  'a Setpoint Profile under a running tuning: a wall-clock jump is no change, its ramp ends the tuning, named',
  async (t) => {
    const f = fermenter().build();
    await f.run(600);
    const q = (unit: string, value: number) => ({ __objtype: 'Quantity', unit, value });
    // 20 degC for an hour and a half, then down to 18 degC over an hour.
    f.runtime.create({
      id: 'Beer Profile',
      type: 'SetpointProfile',
      data: {
        targetId: { __objtype: 'Link', id: 'Beer Setpoint' },
        start: f.clock.wall()! / 1000,
        enabled: true,
        points: [
          { time: q('s', 0), temperature: q('degC', 20) },
          { time: q('s', 5400), temperature: q('degC', 20) },
          { time: q('s', 9000), temperature: q('degC', 18) },
        ],
      },
    });
    await tuneUntilRunningFor(t, f, 600);
    // NTP steps the clock three hours on: the profile keeps its place, the setting stays.
    f.clock.jumpWall(3 * 3600_000);
    await f.run(600);
    t.equal(tuning(f).state, 'RUNNING', tuning(f).message);
    await f.run(5400);
    t.equal(tuning(f).state, 'ABORTED');
    t.match(
      tuning(f).message,
      /^stopped: the setting changed from 20 degC to 19\.\d+ degC \(Beer Profile drives Beer Setpoint\); tune at a steady setting$/,
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
