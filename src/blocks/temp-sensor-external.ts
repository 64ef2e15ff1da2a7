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

export const TempSensorExternal = defineBlock<typeof fields, { updatedAt: number | null }>({
  type: 'TempSensorExternal',
  role: 'sensor',
  homeAssistant: TEMP_SENSOR_ENTITIES,
  fields,
  implements: ['TempSensorInterface', 'EnablerInterface'],
  description: 'A temperature written by an external source, valid for `timeout` after each write',
  init: () => ({ updatedAt: null }),
  onWrite(block, info, ctx) {
    if ('setting' in info.given) {
      block.state.updatedAt = ctx.now;
      block.data.lastUpdated = ctx.wall === null ? null : Math.floor(ctx.wall / 1000);
    }
  },
  update(block, ctx) {
    const d = block.data;
    const timeoutMs = (d.timeout ?? 0) * 1000;
    const fresh = timeoutMs === 0 || (block.state.updatedAt !== null && ctx.now - block.state.updatedAt < timeoutMs);
    d.value = d.enabled && fresh ? d.setting : null;
    return nextBeat(ctx.now, 1000);
  },
});
