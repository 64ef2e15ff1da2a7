// A setpoint without a value under a running tuning (a DS18B20 that misses reads, a 1-Wire bus
// reset, a loose contact): the outputs are off while it lasts, and it ends the tuning when it
// lasts too long, or comes back too often.
import type { UpdateContext } from '../../../runtime/types.js';
import { noValue, type Chain } from './chain.js';
import { abort } from './ending.js';
import type { TunedPid } from './pid-state.js';

/**
 * How long the setpoint may be without a value before the tuning stops, ms: a DS18B20 that misses
 * a few reads, or a 1-Wire bus reset, is back well within it; the outputs are off meanwhile.
 */
const SENSOR_GAP_MS = 60_000;
/**
 * How long, all gaps of a tuning together, ms: a sensor that keeps dropping out (a loose contact)
 * would otherwise keep a tuning going with its outputs off much of the time, each gap short.
 */
const SENSOR_GAPS_TOTAL_MS = 5 * 60_000;

/**
 * The setpoint has no value (a sensor that missed a few reads, a 1-Wire bus glitch): every output
 * of the tuning is off, and the tuning stops once the gap is longer than SENSOR_GAP_MS, or all its
 * gaps together longer than SENSOR_GAPS_TOTAL_MS.
 */
export function sensorGap(block: TunedPid, ctx: UpdateContext, chain: Chain, resumed: boolean): number | null {
  const v = block.state.tuning;
  const input = chain.input.id;
  if (v.gapSince === null) {
    v.gapSince = ctx.now;
    block.data.tuning.message = `${input} has no value: outputs off; the tuning goes on if it reads again within ${SENSOR_GAP_MS / 1000} s`;
  }
  if (ctx.now - v.gapSince > SENSOR_GAP_MS) {
    const why = `${noValue(input)} (none for ${SENSOR_GAP_MS / 1000} s)`;
    abort(block, ctx, resumed ? `could not resume after a restart: ${why}` : `stopped: ${why}`);
    return null;
  }
  const total = (v.run?.gapMs ?? 0) + (ctx.now - v.gapSince);
  if (total > SENSOR_GAPS_TOTAL_MS) {
    abort(
      block,
      ctx,
      `stopped: ${input} keeps losing its value (${Math.round(total / 1000)} s without one in this tuning): check the sensor and its wiring`,
    );
    return null;
  }
  const pair = chain.sides[1]?.pid;
  if (pair && v.run) {
    pair.state.tuning.paired = { byNid: block.nid, request: 0, at: ctx.now };
    ctx.wake(pair);
  }
  return 0;
}
