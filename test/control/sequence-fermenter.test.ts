// Scenario on the emulated fermenter (test/helpers/fermenter.ts): a Sequence ramps the beer
// setpoint with a SetpointProfile, waits until the beer has followed, runs a fan (a spare
// output) for 30 min, drops the setpoint back and restarts. The figures are printed.
import t from 'tap';
import { Fermenter } from '../helpers/fermenter.js';

const RAMP_S = 2 * 3600;
const FAN_S = 30 * 60;
const PRECISION = 0.2;

const INSTRUCTIONS = [
  '# ramp 20 -> 21 degC over 2 h',
  'ENABLE target=Ramp',
  'START_PROFILE target=Ramp',
  'WAIT_PROFILE target=Ramp',
  `WAIT_SETPOINT target=Beer Setpoint, precision=${PRECISION}dC`,
  'SET_DIGITAL target=Fan, setting=STATE_ACTIVE',
  'WAIT_DURATION duration=30m',
  'SET_DIGITAL target=Fan, setting=STATE_INACTIVE',
  'DISABLE target=Ramp',
  'SET_SETPOINT target=Beer Setpoint, setting=20C',
  `WAIT_SETPOINT target=Beer Setpoint, precision=${PRECISION}dC`,
  'RESTART',
];

interface Event {
  t: number;
  instruction: number;
  beer: number;
  setting: number | null;
}

t.test('a Sequence ramps the setpoint, waits for the beer, toggles an output and restarts', async (t) => {
  const f = new Fermenter({ setpoint: 20, stepMs: 1000 }).build();
  const link = (id: string) => ({ __objtype: 'Link', id });
  await f.run(600);
  f.runtime.create({ id: 'Fan', type: 'DigitalActuator', data: { hwDevice: link('Pins'), channel: 3 } });
  f.runtime.create({
    id: 'Ramp',
    type: 'SetpointProfile',
    data: {
      enabled: false,
      targetId: link('Beer Setpoint'),
      points: [
        { time: 0, temperature: 20 },
        { time: RAMP_S, temperature: 21 },
      ],
    },
  });
  f.runtime.create({ id: 'Cycle', type: 'Sequence', data: { instructions: INSTRUCTIONS } });
  const seq = () => f.data('Cycle');
  t.equal(seq().status, 'WAITING', 'the ramp started at once');
  t.equal(seq().activeInstruction, 3);

  const start = f.clock.now() / 1000;
  const events: Event[] = [];
  let last = seq().activeInstruction;
  let fanOnBeforeReached = 0;
  let fanTicks = 0;
  let maxRampLag = 0;
  let errors = 0;
  await f.run(8 * 3600, (s) => {
    const d = seq();
    if (d.status === 'ERROR') errors++;
    const fan = f.pins[2]!;
    if (fan) fanTicks++;
    const active = d.activeInstruction;
    if (active === 3 && s.setting !== null) maxRampLag = Math.max(maxRampLag, s.setting - s.beer);
    if (fan && active <= 4) fanOnBeforeReached++;
    if (active !== last) {
      events.push({ t: s.t - start, instruction: active, beer: s.beer, setting: s.setting });
      last = active;
    }
  });
  t.equal(errors, 0, 'no instruction failed');
  t.equal(fanOnBeforeReached, 0, 'the fan never ran before the setpoint was reached');

  const at = (instruction: number, from = 0) => events.find((e, i) => i >= from && e.instruction === instruction);
  const rampEnd = at(4);
  // SET instructions chain with the WAIT before them: the fan goes on as 4 passes (-> 6), off
  // as 6 passes (-> 10), and RESTART follows 10 (-> 0).
  const reached = at(6);
  const fanOff = at(10);
  const backDone = at(0);
  t.ok(
    rampEnd && reached && fanOff && backDone,
    `all phases passed: ${JSON.stringify(events.map((e) => e.instruction))}`,
  );
  if (!rampEnd || !reached || !fanOff || !backDone) return;
  t.ok(Math.abs(rampEnd.t - RAMP_S) <= 2, `the profile ended after its 2 h (${rampEnd.t} s)`);
  t.equal(rampEnd.setting, 21, 'at 21 degC');
  t.ok(reached.t >= rampEnd.t, 'the wait for the setpoint came after the ramp');
  t.ok(
    Math.abs(reached.beer - 21) <= PRECISION + 1 / 16,
    `the beer was within the precision when it passed (${reached.beer.toFixed(2)} degC)`,
  );
  t.ok(Math.abs(fanOff.t - reached.t - FAN_S) <= 2, `the fan ran 30 min (${fanOff.t - reached.t} s)`);
  const fanRuns = events.filter((e) => e.instruction === 6).length;
  const fanEnds = events.filter((e) => e.instruction === 10).length;
  t.ok(fanRuns >= 2, `at least two cycles in 8 h (${fanRuns})`);
  const expectedFan =
    fanEnds * FAN_S + (fanRuns > fanEnds ? 8 * 3600 - events.filter((e) => e.instruction === 6).pop()!.t : 0);
  t.ok(
    Math.abs(fanTicks - expectedFan) <= 2 * fanRuns + 2,
    `the fan ran only in the 30 min steps (${fanTicks} s of ${expectedFan} s)`,
  );
  t.ok(
    Math.abs(backDone.beer - 20) <= PRECISION + 1 / 16,
    `back at 20 degC before the restart (${backDone.beer.toFixed(2)} degC)`,
  );
  const second = at(6, events.indexOf(backDone));
  t.ok(second, 'the restarted cycle ramped and reached 21 degC again');
  const line = (e: Event | undefined) =>
    e
      ? `${(e.t / 3600).toFixed(2)} h beer ${e.beer.toFixed(2)} degC setting ${e.setting?.toFixed(2)} degC`
      : 'not reached';
  t.comment(`ramp end: ${line(rampEnd)}`);
  t.comment(
    `setpoint reached (fan on): ${line(reached)}; largest lag of the beer behind the ramp ${maxRampLag.toFixed(2)} degC`,
  );
  t.comment(`fan off: ${line(fanOff)}`);
  t.comment(`back at 20 degC (restart): ${line(backDone)}`);
  t.comment(`second cycle reached 21 degC: ${line(second)}`);
  t.comment(`cycle length ${second ? ((second.t - reached.t) / 3600).toFixed(2) : '-'} h`);
});
