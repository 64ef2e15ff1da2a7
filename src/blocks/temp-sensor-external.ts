// TempSensorExternal: a temperature pushed from outside (scripts, other services).
import { f } from '../codec/fields.js';
import { defineBlock } from '../runtime/types.js';
import { TEMP_SENSOR_ENTITIES } from './shared/entities.js';
import { nextBeat } from './shared/cadence.js';

const fields = {
  enabled: f.bool({ stored: true, default: true }),
  timeout: f.duration({ stored: true, description: '0 = the value never expires' }),
  setting: f.temp({ logged: true, stored: true }),
  lastUpdated: f.datetime({ readonly: true, logged: true }),
  value: f.temp({ readonly: true, logged: true }),
};

interface ExternalState {
  /** Monotonic time of the last write of `setting`; null: none since the start. */
  updatedAt: number | null;
  /** Monotonic time of the first update since the start (or since it was created). */
  since: number | null;
  pending: boolean;
}

export const TempSensorExternal = defineBlock<typeof fields, ExternalState>({
  type: 'TempSensorExternal',
  role: 'sensor',
  homeAssistant: TEMP_SENSOR_ENTITIES,
  fields,
  implements: ['TempSensorInterface', 'EnablerInterface'],
  description: 'A temperature written by an external source, valid for `timeout` after each write',
  init: () => ({ updatedAt: null, since: null, pending: true }),
  // After a start the source has its timeout to write before the null counts as a fault.
  pending: (block) => block.state.pending,
  onWrite(block, info, ctx) {
    if ('setting' in info.given) {
      block.state.updatedAt = ctx.now;
      block.data.lastUpdated = ctx.wall === null ? null : Math.floor(ctx.wall / 1000);
    }
  },
  update(block, ctx) {
    const d = block.data;
    const timeoutMs = (d.timeout ?? 0) * 1000;
    const s = block.state;
    s.since ??= ctx.now;
    const fresh = timeoutMs === 0 || (s.updatedAt !== null && ctx.now - s.updatedAt < timeoutMs);
    d.value = d.enabled && fresh ? d.setting : null;
    s.pending = d.value === null && d.enabled && s.updatedAt === null && ctx.now - s.since < timeoutMs;
    return nextBeat(ctx.now, 1000);
  },
});
