// The relay autotune of a Pid block, run from its update once `tuning.command` START was written.
// While it runs, the PID's own output (and its pair's, for a heat/cool pair) follow the relay
// instead of the PID algorithm; the gains and the integral are left as they were, so stopping
// (by the brewer, or because something went wrong) simply hands control back. What it must keep
// across a restart is in the block's stored read-only fields (fields.ts): a restart resumes
// the relay and measures again, counting the time already spent toward the limit.
// The pieces beside it: the state it keeps on the block (pid-state.ts), the pair's side
// (pair.ts), a sensor gap (sensor-gap.ts), and how a run ends (ending.ts).
import type { UnitPrefs } from '../../../codec/units.js';
import type { UpdateContext } from '../../../runtime/types.js';
import { setupOf } from './setup.js';
import { delivered, tuningChain, type Chain } from './chain.js';
import { resultOf, startSearch } from './conclusion.js';
import { abort, end } from './ending.js';
import { pairRequest } from './pair.js';
import { lookOf, type TunedPid } from './pid-state.js';
import { period, Relay, swing, type Cycle } from './relay.js';
import { TuneRun } from './run.js';
import { sensorGap } from './sensor-gap.js';
import { delta, hours, round, temp, tempsApart } from './words.js';

/** A phase may last this much longer than the longest so far before the relay pushes harder. */
const STALL_FACTOR = 4;
const STALL_MIN_MS = 3600_000;
/**
 * Cycles at steady output levels beyond the count asked for, after which an oscillation that does
 * not repeat aborts. The warm-ups after the relay changed its levels are no evidence either way:
 * a relay that took all its adaptations and the warm-up after each had used up a count of all
 * cycles, and a fridge swinging the same every cycle was told something else moved it.
 */
const EXTRA_CYCLES = 10;
/** How often the elapsed time is stored while the relay runs, s. */
const ELAPSED_STORE_S = 300;

/** Steps of the gain search per update: each runs a few simulated steps (tens of ms here, more on a Pi). */
const SEARCH_STEPS_PER_UPDATE = 1;

/**
 * One update of a PID's tuning. Returns the output the PID drives instead of its own (the
 * relay's, or its tuner's for a pair), or null when it controls normally.
 */
export function tuningRequest(block: TunedPid, ctx: UpdateContext): number | null {
  const tu = block.data.tuning;
  const v = block.state.tuning;
  const asked = pairRequest(block, ctx);
  if (asked !== null) return asked;
  if (tu.state !== 'RUNNING') {
    v.run = null;
    tu.phase = 'NONE';
    tu.timeLeft = null;
    return null;
  }
  return step(block, ctx);
}

function step(block: TunedPid, ctx: UpdateContext): number | null {
  const tu = block.data.tuning;
  const v = block.state.tuning;
  const now = ctx.now;
  const running = v.run ? { sign: v.run.sign, pairNid: v.run.pairNid, pairId: v.run.pairId } : undefined;
  const chain = tuningChain(block, lookOf(ctx), { gapOk: true, running });
  const resumed = !v.run && !v.starting;
  if (typeof chain === 'string') {
    abort(block, ctx, resumed ? `could not resume after a restart: ${chain}` : `stopped: ${chain}`);
    return null;
  }
  if (chain.input.data.value === null) return sensorGap(block, ctx, chain, resumed);
  let gapEnded = false;
  if (v.gapSince !== null) {
    tu.message = `${chain.input.id} reads again after ${Math.round((now - v.gapSince) / 1000)} s without a value; the tuning goes on`;
    if (v.run) {
      v.run.gapMs += now - v.gapSince;
      v.run.relay.interrupted(now - v.gapSince);
      gapEnded = true;
    }
    v.gapSince = null;
  }
  const setting = chain.input.data.setting!;
  const error = chain.input.data.value - setting;
  let run = v.run;
  if (!run) {
    run = v.run = begin(block, ctx, chain, error);
    v.starting = false;
  }
  // A run's pair and direction are checked by tuningChain (`running`); a fresh run took them from it.
  const pair = chain.sides[1]?.pid ?? null;
  // A rename of the pair is no change: its nid is the same.
  if (pair) run.pairId = pair.id;
  if (Math.abs(setting - run.setting) > 1e-6) {
    // By hand or by a Sequence (a profile or driver that takes the setpoint is named by the
    // chain): shown with the digits that tell the two apart.
    const [was, is] = tempsApart(run.setting, setting, ctx.units);
    abort(block, ctx, `stopped: the setting changed from ${was} to ${is}; tune at a steady setting`);
    return null;
  }
  if (Math.abs(error) > tu.band!) {
    abort(
      block,
      ctx,
      `stopped: the temperature left the band, ${delta(Math.abs(error), ctx.units)} from the setting (the band is ${delta(tu.band!, ctx.units)})`,
    );
    return null;
  }
  const elapsed = run.elapsed(now);
  const storedBefore = tu.elapsed ?? 0;
  tu.elapsed = Math.round(elapsed);
  // Stored every few minutes, so a restart loses little of the time toward the limit.
  if (Math.floor(tu.elapsed / ELAPSED_STORE_S) !== Math.floor(storedBefore / ELAPSED_STORE_S)) ctx.persist(block);
  if (elapsed > tu.maxDuration!) {
    const done = run.relay.counted().length;
    abort(
      block,
      ctx,
      `stopped: no result within the time limit (${hours(tu.maxDuration!)}); ${done} steady cycle${done === 1 ? '' : 's'} measured of the ${tu.cycles} needed`,
    );
    return null;
  }
  if (run.lastT !== null && now > run.lastT) {
    const from = run.lastT;
    const outputs = chain.sides.map((s) => delivered(s, from, now));
    // Across a gap the temperature was not read: taken as moving straight from the last reading.
    run.record.add((now - from) / 1000, error, outputs, gapEnded ? run.lastError : null);
  }
  run.lastT = now;
  run.lastError = error;
  if (run.search) {
    for (let i = 0; i < SEARCH_STEPS_PER_UPDATE; i++) {
      const r = run.search.gen.next();
      if (r.done) {
        const { result, message } = resultOf(chain, run.search, r.value, ctx.units);
        tu.result = { ...result, ...setupOf(block.id, block.data as never, lookOf(ctx)) };
        tu.cycle = run.search.tail.length;
        end(block, ctx, 'PROPOSED', message);
        ctx.log.info({ id: block.id, result }, 'PID tuning done: gains proposed');
        return null;
      }
    }
  }
  const levelsBefore = run.levels();
  const cycle = run.relay.step(now, error);
  if (cycle && !run.search) {
    if (run.relay.consistent()) {
      // The search runs over the next updates (all at once, it held up the control loop for seconds).
      const search = startSearch(chain, run.record, run.relay.consistent()!);
      if (typeof search === 'string') {
        abort(block, ctx, search);
        return null;
      }
      run.search = search;
      tu.cycle = search.tail.length;
      tu.message = `measured ${search.tail.length} steady cycles of ${hours(search.periodS)}, +/-${delta(search.amplitude, ctx.units)}: computing the gains`;
      ctx.persist(block);
    }
    const steady = run.relay.measured().filter((c) => c.counted);
    if (!run.search && steady.length > tu.cycles! + EXTRA_CYCLES) {
      abort(
        block,
        ctx,
        `stopped: after ${steady.length} cycles at steady output levels the oscillation still does not repeat (${describe(steady.slice(-tu.cycles!), ctx.units)}): something else moves the temperature`,
      );
      return null;
    }
    const levels = run.levels();
    if (levels.up !== levelsBefore.up || levels.down !== levelsBefore.down)
      tu.message = `output levels now ${describeLevels(run)} to keep the swing near ${delta(tu.amplitude!, ctx.units)}`;
    tu.levels = { up: round(levels.up), down: round(levels.down) };
    ctx.persist(block);
  }
  const longest = run.relay.longestPhase();
  // Before a first cycle there is nothing to compare with: a quarter of the time limit, at least an hour.
  const limit = Math.max(STALL_MIN_MS, longest === null ? (tu.maxDuration! * 1000) / 4 : STALL_FACTOR * longest);
  if (now - run.relay.phaseSince > limit) {
    const rising = run.relay.phase === 'up';
    if (!run.relay.push(now)) {
      abort(
        block,
        ctx,
        rising
          ? `stopped: the temperature does not rise with the output at full (${run.max} %) for ${hours(limit / 1000)}`
          : `stopped: the temperature does not fall with the output off for ${hours(limit / 1000)}: is the room warmer than the setting? Pair the PID with a cooler, or tune at a setting below room temperature`,
      );
      return null;
    }
    tu.message = `the temperature was slow to come back: output levels raised to ${describeLevels(run)}`;
    tu.levels = run.levels();
  }
  progress(block, run, now);
  const out = run.outputs();
  if (pair) {
    const p = pair;
    p.state.tuning.paired = { byNid: block.nid, request: out.pair, at: now };
    p.data.tuning.tunedBy = block.id;
    ctx.wake(pair);
  }
  return out.self;
}

function describeLevels(run: TuneRun): string {
  const l = run.levels();
  return run.sides === 2
    ? `heat ${Math.round(l.up)} %, cool ${Math.round(l.down)} %`
    : `${Math.round(l.up)} / ${Math.round(l.down)} %`;
}

function describe(cycles: Cycle[], units: UnitPrefs): string {
  return cycles.map((c) => `${hours(period(c) / 1000)} +/-${delta(swing(c), units)}`).join(', ');
}

/** A fresh run after START, or the resumption of one after a restart. */
function begin(block: TunedPid, ctx: UpdateContext, chain: Chain, error: number): TuneRun {
  const tu = block.data.tuning;
  const v = block.state.tuning;
  const sides = chain.sides.length;
  const sign = chain.sides[0].sign;
  const max = tu.maxOutput ?? 100;
  const fresh = v.starting;
  let bias = 0;
  let scale = { up: 1, down: 1 };
  if (fresh) {
    bias = Math.min(max, Math.max(0, block.state.requested ?? 0));
  } else if (tu.levels.up !== null && tu.levels.down !== null) {
    if (sides === 2) scale = { up: tu.levels.up / max, down: tu.levels.down / max };
    else {
      const hi = sign > 0 ? tu.levels.up : tu.levels.down;
      const lo = sign > 0 ? tu.levels.down : tu.levels.up;
      const s = Math.min(1, Math.max(0.05, (hi - lo) / max));
      scale = { up: s, down: s };
      bias = s < 1 ? Math.min(max, Math.max(0, lo / (1 - s))) : 0;
    }
  }
  const relay = new Relay(
    { amplitude: tu.amplitude!, hysteresis: tu.hysteresis!, cycles: tu.cycles!, pair: sides === 2 },
    ctx.now,
    error,
    scale,
  );
  const setting = fresh || tu.setting === null ? chain.input.data.setting! : tu.setting;
  const run = new TuneRun(
    relay,
    sides,
    sign,
    chain.sides[1]?.pid.id ?? null,
    chain.sides[1]?.pid.nid ?? null,
    setting,
    bias,
    max,
    ctx.now,
    fresh ? 0 : (tu.elapsed ?? 0),
  );
  tu.setting = setting;
  tu.levels = run.levels();
  tu.message = fresh
    ? `relay running: the output switches ${delta(tu.hysteresis!, ctx.units)} either side of ${temp(setting, ctx.units)}`
    : 'resumed after a restart: measuring again (the time so far counts toward the limit)';
  ctx.log.info({ id: block.id, pair: run.pairId, resumed: !fresh }, 'PID tuning runs');
  return run;
}

function progress(block: TunedPid, run: TuneRun, now: number): void {
  const tu = block.data.tuning;
  const relay = run.relay;
  tu.cycle = Math.min(relay.counted().length, tu.cycles!);
  tu.phase = relay.phase === 'up' ? 'UP' : 'DOWN';
  const left = relay.cyclesLeft();
  const p = relay.typicalPeriod();
  const lastStart = relay.cycles.length ? relay.cycles[relay.cycles.length - 1]!.end : null;
  if (left === null || p === null || lastStart === null) {
    tu.timeLeft = null;
    return;
  }
  const estimate = Math.max(0, (left * p - (now - lastStart)) / 1000);
  tu.timeLeft = Math.round(Math.min(estimate, Math.max(0, tu.maxDuration! - run.elapsed(now))));
}
