// The PID relay autotune on the emulated fermenter (heat/cool pair on one setpoint, interlocked
// by a mutex, the cooler with minimum on/off times): a full tuning, apply and undo, and every way
// it must stop and hand back the gains it found unchanged.
import t, { type Test as Tap } from 'tap';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { DEFAULT_COOL, DEFAULT_HEAT, DEFAULT_MUTEX_HOLD, Fermenter } from '../helpers/fermenter.js';

const gains = (f: Fermenter, id: string) => {
  const d = f.data(id);
  return { kp: d.kp, ti: d.ti, td: d.td };
};

function fermenter(opts: { persistence?: Fermenter['persistence']; beer?: number } = {}): Fermenter {
  const beer = opts.beer ?? 20;
  return new Fermenter({
    setpoint: 20,
    stepMs: 1000,
    persistence: opts.persistence,
    plant: { ambient: 20, initial: { beer, air: beer } },
  });
}

const start = (f: Fermenter, extra: Record<string, unknown> = {}) =>
  f.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { tuning: { command: 'START', ...extra } } });
const command = (f: Fermenter, c: string) =>
  f.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { tuning: { command: c } } });
const tuning = (f: Fermenter) => f.data('Heat PID').tuning;

/** Runs until the tuning is no longer RUNNING (or `hours` pass); watches both outputs. */
async function runTuning(f: Fermenter, hours: number) {
  const seen = { both: 0, heat: 0, cool: 0, shortestHandover: Infinity, maxCycle: 0, computing: 0 };
  let lastOff: { which: 'heat' | 'cool'; t: number } | null = null;
  let prev = { heater: f.heaterOn, cooler: f.coolerOn };
  for (let h = 0; h < hours * 6 && tuning(f).state === 'RUNNING'; h++)
    await f.run(600, (s) => {
      if (s.heater && s.cooler) seen.both++;
      if (s.heater) seen.heat++;
      if (s.cooler) seen.cool++;
      if (prev.heater && !s.heater) lastOff = { which: 'heat', t: s.t };
      if (prev.cooler && !s.cooler) lastOff = { which: 'cool', t: s.t };
      const on = !prev.heater && s.heater ? 'heat' : !prev.cooler && s.cooler ? 'cool' : null;
      if (on && lastOff && lastOff.which !== on)
        seen.shortestHandover = Math.min(seen.shortestHandover, s.t - lastOff.t);
      prev = { heater: s.heater, cooler: s.cooler };
      seen.maxCycle = Math.max(seen.maxCycle, tuning(f).cycle ?? 0);
      if (tuning(f).state === 'RUNNING' && /computing the gains/.test(tuning(f).message)) seen.computing++;
    });
  return seen;
}

t.test('a pair is tuned through its mutex, the result is proposed, applied on APPLY and undone on UNDO', async (t) => {
  const f = fermenter().build();
  await f.run(1800);
  const before = { heat: gains(f, 'Heat PID'), cool: gains(f, 'Cool PID') };
  start(f, { cycles: 3 });
  t.equal(tuning(f).state, 'RUNNING');
  await f.run(60);
  t.equal(f.data('Cool PID').tuning.tunedBy, 'Heat PID', 'the pair is driven by the tuner');
  const seen = await runTuning(f, 48);
  const tu = tuning(f);
  t.equal(tu.state, 'PROPOSED', tu.message);
  t.comment(`tuned in ${(tu.elapsed / 3600).toFixed(1)} h: ${tu.message}`);
  t.ok(seen.heat > 0 && seen.cool > 0, 'the relay used heating and cooling');
  t.equal(seen.both, 0, 'heater and cooler never on together');
  t.ok(
    seen.shortestHandover >= DEFAULT_MUTEX_HOLD - 1,
    `a handover waits for the mutex hold (shortest ${seen.shortestHandover} s)`,
  );
  t.equal(seen.maxCycle, 3, 'progress counted up to the cycles asked for');
  t.ok(seen.computing > 10, `the gains are computed over many updates, not in one (${seen.computing} ticks)`);
  t.ok(tu.result.period > 0 && tu.result.amplitude > 0, 'measured period and amplitude are shown');
  t.ok(tu.result.kp > 0 && tu.result.pairKp < 0, 'gains for both sides, with their signs');
  t.ok(tu.result.settling > 0, 'expected settling is shown');
  t.match(tu.result.rule, /SIMC|gains in use/);
  // One shortest compressor run on the plant: the heat it takes from the air, the beer's share of it.
  const p = f.plant.config;
  const dose =
    (p.cooler.powerW * DEFAULT_COOL.minOn * (p.beerToAir / (p.beerToAir + p.airToAmbient))) / p.beer.heatCapacity;
  t.ok(
    Math.abs(tu.result.shortestRun / dose - 1) < 0.3,
    `one shortest run moves the beer ${tu.result.shortestRun} degC on the model, ${dose.toFixed(3)} on the plant`,
  );
  t.same(gains(f, 'Heat PID'), before.heat, 'proposed, not imposed: the heat gains are unchanged');
  t.same(gains(f, 'Cool PID'), before.cool, 'and the cool gains');
  t.equal(f.data('Cool PID').tuning.tunedBy, null, 'the pair is released');
  await f.run(600);
  t.equal(f.data('Heat PID').active, true, 'control is back with the old gains');

  t.throws(() => command(f, 'UNDO'), /not while the tuning is PROPOSED: APPLY or DISCARD the result first/);
  command(f, 'APPLY');
  t.equal(tuning(f).state, 'APPLIED');
  t.same(gains(f, 'Heat PID'), { kp: tu.result.kp, ti: tu.result.ti, td: tu.result.td }, 'heat gains applied');
  t.same(
    gains(f, 'Cool PID'),
    { kp: tu.result.pairKp, ti: tu.result.pairTi, td: tu.result.pairTd },
    'the pair gets its gains',
  );
  t.same(
    { kp: tuning(f).previous.kp, ti: tuning(f).previous.ti, td: tuning(f).previous.td },
    before.heat,
    'previous gains kept',
  );
  t.throws(() => command(f, 'APPLY'), /nothing to apply/);

  // A backup brings the applied result and the gains to undo back, as a restart does.
  const saved = JSON.parse(JSON.stringify(f.runtime.backupSave()));
  // Another tuning, started and stopped: the gains the APPLY replaced stay undoable.
  start(f);
  await f.run(60);
  t.throws(() => command(f, 'UNDO'), /not while the tuning is RUNNING: STOP it first/);
  command(f, 'STOP');
  t.equal(tuning(f).state, 'ABORTED');
  f.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { kp: 1 } });
  const loaded = await f.runtime.backupLoad(saved);
  t.same(loaded.messages, [], 'a clean load');
  t.equal(tuning(f).state, 'APPLIED', 'the tuning state is back');
  t.equal(tuning(f).result.kp, tu.result.kp, 'with its result');
  t.equal(tuning(f).previous.kp, before.heat.kp, 'and the gains to undo');
  t.same(gains(f, 'Heat PID'), { kp: tu.result.kp, ti: tu.result.ti, td: tu.result.td }, 'the gains as saved');
  await f.run(60);
  start(f);
  await f.run(60);
  command(f, 'STOP');

  // The previous gains survive a restart, so UNDO works after one.
  const again = fermenter({ persistence: f.persistence, beer: f.plant.beer });
  t.equal(again.data('Heat PID').tuning.previous.kp, before.heat.kp, 'previous gains stored');
  t.equal(again.data('Heat PID').tuning.state, 'ABORTED', 'state stored (a tuning stopped since the APPLY)');
  again.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { tuning: { command: 'UNDO' } } });
  t.same(gains(again, 'Heat PID'), before.heat, 'UNDO: heat gains back');
  t.same(gains(again, 'Cool PID'), before.cool, 'UNDO: cool gains back');
  t.equal(again.data('Heat PID').tuning.state, 'IDLE');
  t.throws(
    () => again.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { tuning: { command: 'UNDO' } } }),
    /nothing to undo: no applied result \(the tuning is IDLE\)/,
    'undone once, there is nothing left to undo',
  );
  t.end();
});

async function tuneUntilRunningFor(t: Tap, f: Fermenter, seconds: number) {
  start(f);
  await f.run(seconds);
  t.equal(tuning(f).state, 'RUNNING', 'the tuning runs');
}

t.test('aborts, and the gains stay as they were', async (t) => {
  t.test('STOP', async (t) => {
    const f = fermenter().build();
    await f.run(600);
    const before = gains(f, 'Heat PID');
    await tuneUntilRunningFor(t, f, 1800);
    command(f, 'STOP');
    t.equal(tuning(f).state, 'ABORTED');
    t.equal(tuning(f).message, 'stopped by the user');
    t.same(gains(f, 'Heat PID'), before);
    t.equal(f.data('Cool PID').tuning.tunedBy, null, 'pair released');
    await f.run(120);
    t.equal(f.data('Heat PID').active, true, 'PID controls again');
    t.throws(() => command(f, 'APPLY'), /nothing to apply: the tuning is ABORTED/);
  });

  t.test('sensor fault: the outputs go off at once; after a minute without a value it aborts', async (t) => {
    const f = fermenter().build();
    await f.run(600);
    const before = gains(f, 'Heat PID');
    await tuneUntilRunningFor(t, f, 1800);
    f.probeConnected = false;
    await f.run(5);
    t.equal(tuning(f).state, 'RUNNING', 'a gap of a few reads does not end the tuning');
    t.match(tuning(f).message, /has no value: outputs off; the tuning goes on if it reads again within 60 s/);
    t.same([f.data('Heat PID').outputSetting, f.data('Cool PID').outputSetting], [0, 0], 'both PIDs ask for nothing');
    await f.run(60);
    t.equal(tuning(f).state, 'ABORTED');
    t.match(tuning(f).message, /^stopped: its setpoint Beer Setpoint has no value: check the sensor \(none for 60 s\)/);
    let onAfter = 0;
    await f.run(1800, (s) => void (onAfter += s.heater || s.cooler ? 1 : 0));
    t.equal(onAfter, 0, 'nothing is on while the sensor is gone');
    t.same(gains(f, 'Heat PID'), before);
    // The sensor back, a new tuning starts afresh: the old gap is forgotten (else a gap in the
    // first second of the next tuning would abort it at once as "none for 60 s").
    t.equal((f.block('Heat PID').state as { tuning: { gapSince: number | null } }).tuning.gapSince, null);
    f.probeConnected = true;
    await f.run(10);
    start(f);
    await f.run(5);
    t.equal(tuning(f).state, 'RUNNING');
    t.match(tuning(f).message, /^relay running/, 'a new run, not the end of an old gap');
  });

  t.test('a sensor gap shorter than a minute: outputs off meanwhile, then the tuning goes on', async (t) => {
    const f = fermenter().build();
    await f.run(600);
    await tuneUntilRunningFor(t, f, 1800);
    const cycle = tuning(f).cycle;
    f.probeConnected = false;
    // Asked of both outputs at each second the setpoint had no value (it keeps the last reading
    // for the sensor's stale time, 2-3 s), from the PIDs' next update on.
    const asked: number[] = [];
    await f.run(30, () => {
      if (f.data('Beer Setpoint').value === null)
        asked.push(f.data('Heat PID').outputSetting + Math.abs(f.data('Cool PID').outputSetting));
    });
    t.ok(asked.length >= 25, `${asked.length} s without a value`);
    t.same(new Set(asked.slice(1)), new Set([0]), 'nothing asked of either output meanwhile');
    f.probeConnected = true;
    await f.run(5);
    t.equal(tuning(f).state, 'RUNNING');
    t.match(tuning(f).message, /^Beer Setpoint reads again after \d+ s without a value; the tuning goes on/);
    await f.run(4 * 3600);
    t.equal(tuning(f).state, 'RUNNING', 'still measuring hours later');
    t.ok(tuning(f).cycle >= cycle, `cycles counted on (${cycle} then ${tuning(f).cycle})`);
  });

  t.test('a sensor that keeps dropping out: five minutes without a value in all end the tuning', async (t) => {
    const f = fermenter().build();
    await f.run(600);
    const before = gains(f, 'Heat PID');
    await tuneUntilRunningFor(t, f, 1800);
    let rounds = 0;
    // 40 s gone, 20 s back, again and again: each gap alone is within the minute.
    while (tuning(f).state === 'RUNNING' && rounds < 30) {
      f.probeConnected = false;
      await f.run(40);
      f.probeConnected = true;
      await f.run(20);
      rounds++;
    }
    t.equal(tuning(f).state, 'ABORTED');
    t.ok(rounds >= 7 && rounds <= 9, `after ${rounds} gaps of about 37 s`);
    t.match(
      tuning(f).message,
      /^stopped: Beer Setpoint keeps losing its value \(\d+ s without one in this tuning\): check the sensor and its wiring$/,
    );
    t.same(gains(f, 'Heat PID'), before);
  });

  t.test('leaving the band', async (t) => {
    const f = fermenter().build();
    await f.run(600);
    const before = gains(f, 'Heat PID');
    start(f, { amplitude: 0.5, band: 1 });
    await f.run(60);
    t.equal(tuning(f).state, 'RUNNING');
    // The band narrowed under a running tuning (read at every update): the next swing leaves it.
    f.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { tuning: { band: 0.2 } } });
    await runTuning(f, 24);
    t.equal(tuning(f).state, 'ABORTED');
    t.match(tuning(f).message, /left the band/);
    t.same(gains(f, 'Heat PID'), before);
  });

  t.test('time limit', async (t) => {
    const f = fermenter().build();
    await f.run(600);
    start(f, { maxDuration: 1200 });
    await f.run(1140);
    t.equal(tuning(f).state, 'RUNNING');
    await f.run(120);
    t.equal(tuning(f).state, 'ABORTED');
    t.match(tuning(f).message, /no result within the time limit \(20 min\)/);
  });

  t.test('a setting changed during the tuning', async (t) => {
    const f = fermenter().build();
    await f.run(600);
    await tuneUntilRunningFor(t, f, 600);
    f.setSetpoint(19);
    await f.run(5);
    t.equal(tuning(f).state, 'ABORTED');
    t.match(tuning(f).message, /setting changed from 20 to 19/);
  });
  t.end();
});

t.test('restart: a tuning resumes when it can, and aborts cleanly (outputs off) when it cannot', async (t) => {
  const f = fermenter().build();
  await f.run(600);
  const before = gains(f, 'Heat PID');
  await tuneUntilRunningFor(t, f, 3 * 3600);
  const storedTuning = JSON.parse(f.persistence.records.get(f.block('Heat PID').nid)!.data).tuning;
  const elapsed = storedTuning.elapsed.value as number;
  t.ok(elapsed >= 3 * 3600 - 300, `the time spent is stored as it runs (${elapsed} s of ${tuning(f).elapsed} s)`);

  // The database as the crash left it, for two restarts.
  const copy = () => {
    const p = new MemoryPersistence();
    p.records = new Map(f.persistence.records);
    return p;
  };

  // Restart with the probe gone: the tuning cannot resume and nothing may stay on.
  const broken = fermenter({ persistence: copy(), beer: f.plant.beer });
  broken.probeConnected = false;
  t.equal(broken.data('Heat PID').tuning.state, 'RUNNING', 'restored as it was stored');
  let on = 0;
  await broken.run(3600, (s) => void (on += s.heater || s.cooler ? 1 : 0));
  t.equal(broken.data('Heat PID').tuning.state, 'ABORTED');
  t.match(broken.data('Heat PID').tuning.message, /could not resume after a restart: .*no value.*none for 60 s/);
  t.equal(on, 0, 'no output on after the restart');
  t.same(gains(broken, 'Heat PID'), before, 'gains unchanged');

  // Restart with the probe in place: it resumes, counting the time already spent.
  const ok = fermenter({ persistence: copy(), beer: f.plant.beer });
  await ok.run(60);
  const tu = ok.data('Heat PID').tuning;
  t.equal(tu.state, 'RUNNING');
  t.match(tu.message, /resumed after a restart/);
  t.ok(tu.elapsed >= elapsed, `the time so far counts (${tu.elapsed} s >= ${elapsed} s)`);
  t.equal(ok.data('Cool PID').tuning.tunedBy, 'Heat PID', 'the pair is driven again');
  t.end();
});

t.test('refusals: what else drives the chain, a shared mutex, a PID already paired', async (t) => {
  const f = fermenter().build();
  await f.run(600);
  const link = (id: string) => ({ __objtype: 'Link', id });
  // A third actuator on the same mutex, switched on: its waits would spoil the measurement.
  f.runtime.create({
    id: 'Pump',
    type: 'DigitalActuator',
    data: {
      hwDevice: link('Pins'),
      channel: 3,
      storedState: 'STATE_ACTIVE',
      constraints: { mutexed: { mutexId: link('Mutex'), extraHoldTime: 0, enabled: true } },
    },
  });
  await f.run(5);
  t.throws(() => start(f), /cannot start: .*mutex Mutex is also taken by Pump, which the tuning does not drive/);
  f.runtime.delete({ id: 'Pump' });

  // A third PID on the setpoint.
  f.runtime.create({
    id: 'Other PWM',
    type: 'ActuatorAnalogMock',
    data: {},
  });
  f.runtime.create({
    id: 'Other PID',
    type: 'Pid',
    data: { inputId: link('Beer Setpoint'), outputId: link('Other PWM'), kp: 10, enabled: true },
  });
  t.throws(
    () => start(f),
    /cannot start: Cool PID, Other PID also control Beer Setpoint: disable them, or name the pair in tuning.pairId/,
  );
  // With the pair named, the third PID is the one in the way, and naming is no longer the advice.
  let refusal = '';
  try {
    start(f, { pairId: link('Cool PID') });
  } catch (e) {
    refusal = (e as Error).message;
  }
  t.match(refusal, /cannot start: Other PID also controls Beer Setpoint: disable it$/);
  t.throws(
    () => start(f, { pairId: link('Heat PID') }),
    /cannot start: tuning\.pairId names Heat PID itself: the pair is the PID that drives the other way/,
  );
  f.runtime.delete({ id: 'Other PID' });

  // The heater's actuator driven by something else than its PWM.
  f.runtime.patch({ id: 'Heat PWM', type: 'ActuatorPwm', data: { actuatorId: link('Cool Actuator') } });
  t.throws(() => start(f), /Cool Actuator is driven by Cool PWM, not by Heat PWM/);
  f.runtime.patch({ id: 'Heat PWM', type: 'ActuatorPwm', data: { actuatorId: link('Heat Actuator') } });

  // Outside the band.
  f.setSetpoint(25);
  t.throws(() => start(f), /outside the band/);
  f.setSetpoint(20);

  // A band the first swings would leave, and nothing to stop.
  t.throws(
    () => start(f, { amplitude: 2 }),
    /cannot start: the band \(2 degC\) must be at least 2 times the amplitude \(2 degC\), or the first swings end the tuning; raise band or lower amplitude/,
  );
  t.equal(f.data('Heat PID').tuning.amplitude, 0.5, 'the refused write changed nothing');
  t.throws(() => command(f, 'STOP'), /nothing to stop: the tuning is IDLE/);
  t.throws(
    () => start(f, { hysteresis: 0.5 }),
    /cannot start: the hysteresis \(0\.5 degC\) must be below the amplitude \(0\.5 degC\)/,
  );

  // The pair cannot be tuned on its own while the tuning drives it. (0.12 degC is one of the
  // values that come back from degF a hair off: see the write of the whole block below.)
  start(f, { hysteresis: 0.12 });
  await f.run(30);
  t.throws(
    () => f.runtime.patch({ id: 'Cool PID', type: 'Pid', data: { tuning: { command: 'START' } } }),
    /Cool PID is being tuned as the pair of Heat PID/,
  );
  t.equal(tuning(f).state, 'RUNNING', 'the running tuning goes on');
  t.throws(
    () => f.runtime.patch({ id: 'Cool PID', type: 'Pid', data: { tuning: { command: 'STOP' } } }),
    /Cool PID is being tuned as the pair of Heat PID: STOP it there/,
  );
  // A rename of the pair is no change of the pair.
  f.runtime.rename({ existing: 'Cool PID', desired: 'Fridge Cooling' });
  await f.run(30);
  t.equal(tuning(f).state, 'RUNNING', `a renamed pair: the tuning goes on (${tuning(f).message})`);
  t.equal(f.data('Fridge Cooling').tuning.tunedBy, 'Heat PID', 'and still drives it');
  f.runtime.rename({ existing: 'Fridge Cooling', desired: 'Cool PID' });
  await f.run(30);
  t.equal(tuning(f).state, 'RUNNING');
  t.throws(
    () => start(f, { amplitude: 0.3 }),
    /already running: STOP it first to start again/,
    'a second START is refused, not taken silently',
  );
  t.equal(f.data('Heat PID').tuning.amplitude, 0.5, 'its settings were not taken either');
  t.throws(
    () => f.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { tuning: { cycles: 6 } } }),
    /data\.tuning\.cycles: the running tuning took cycles 4 at its start; STOP it first to change it/,
    'a setting the run took at its start cannot change under it',
  );
  // The whole block written back as a degF client reads it: the same settings, converted twice.
  const units = f.runtime.units as { temperature: string };
  units.temperature = 'degF';
  const whole = JSON.parse(f.runtime.read({ id: 'Heat PID' }).bytes().toString()) as { data: Record<string, unknown> };
  f.runtime.write({ id: 'Heat PID', type: 'Pid', data: whole.data });
  units.temperature = 'degC';
  t.equal(tuning(f).state, 'RUNNING', 'a write of the same settings in degF is no change');
  f.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { tuning: { band: 1.5, maxDuration: 7200 } } });
  t.same(
    [f.data('Heat PID').tuning.band, f.data('Heat PID').tuning.maxDuration],
    [1.5, 7200],
    'the limits it reads all along can',
  );
  t.end();
});

t.comment(`defaults: heat ${JSON.stringify(DEFAULT_HEAT)}, cool ${JSON.stringify(DEFAULT_COOL)}`);

t.test(
  'a single side: the heater alone; actuators on its mutex that stay off do not stop it, one switched on does',
  async (t) => {
    const f = fermenter().build();
    const link = (id: string) => ({ __objtype: 'Link', id });
    f.runtime.create({
      id: 'Pump',
      type: 'DigitalActuator',
      data: { hwDevice: link('Pins'), channel: 3, constraints: { mutexed: { mutexId: link('Mutex'), enabled: true } } },
    });
    await f.run(600);
    f.runtime.patch({ id: 'Cool PID', type: 'Pid', data: { enabled: false } });
    await f.run(60);
    start(f);
    await f.run(600);
    t.equal(tuning(f).state, 'RUNNING', tuning(f).message);
    t.equal(f.data('Cool PID').tuning.tunedBy, null, 'no pair');
    t.ok(tuning(f).levels.up > 0 && tuning(f).levels.down === 0, 'heat only: up is the heater, down is off');
    f.runtime.patch({ id: 'Pump', type: 'DigitalActuator', data: { storedState: 'STATE_ACTIVE' } });
    await f.run(5);
    t.equal(tuning(f).state, 'ABORTED');
    t.match(tuning(f).message, /stopped: Heat Actuator's mutex Mutex is also taken by Pump/);

    // The cooler's PID enabled again mid-run: the tuning stops (the chain changed).
    f.runtime.patch({ id: 'Pump', type: 'DigitalActuator', data: { storedState: 'STATE_INACTIVE' } });
    await f.run(60);
    start(f);
    await f.run(60);
    t.equal(tuning(f).state, 'RUNNING', tuning(f).message);
    f.runtime.patch({ id: 'Cool PID', type: 'Pid', data: { enabled: true } });
    await f.run(5);
    t.equal(tuning(f).state, 'ABORTED');
    t.match(tuning(f).message, /stopped: Cool PID now drives the other way on the same setpoint/);
    t.end();
  },
);
