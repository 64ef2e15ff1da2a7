// The PID relay autotune on the emulated fermenter (heat/cool pair on one setpoint, interlocked
// by a mutex, the cooler with minimum on/off times): a full tuning, apply and undo, and every way
// it must stop and hand back the gains it found unchanged.
// The ways it stops are in tuning-aborts.test.ts, what it refuses in tuning-refusals.test.ts; the rig
// is tuning-rig.ts.
import t from 'tap';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { DEFAULT_COOL, DEFAULT_HEAT, DEFAULT_MUTEX_HOLD } from '../helpers/fermenter.js';
import { command, fermenter, gains, runTuning, start, tuneUntilRunningFor, tuning } from './tuning-rig.js';

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

t.comment(`defaults: heat ${JSON.stringify(DEFAULT_HEAT)}, cool ${JSON.stringify(DEFAULT_COOL)}`);
