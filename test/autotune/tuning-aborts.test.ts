// The PID relay autotune on the emulated fermenter (tuning-rig.ts): every way a running tuning must
// stop (STOP, a sensor fault, leaving the band, the time limit, a setting changed) with the gains unchanged.
import t from 'tap';
import { command, fermenter, gains, runTuning, start, tuneUntilRunningFor, tuning } from './tuning-rig.js';

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
    t.match(tuning(f).message, /setting changed from 20 °C to 19 °C/);
  });
  t.end();
});
