// TempSensorCombi: the average, minimum or maximum of up to 8 temperature sensors, ignoring
// the ones without a value; null when none has one. Reference §5.1.
import { f } from '../codec/fields.js';
import { defineBlock, readingPending } from '../runtime/types.js';
import { SensorCombiFunc } from './shared/enums.js';
import { TEMP_SENSOR_ENTITIES } from './shared/entities.js';
import { nextBeat } from './shared/cadence.js';

const fields = {
  value: f.temp({ readonly: true, logged: true }),
  combineFunc: f.enum(SensorCombiFunc, { stored: true }),
  sensors: f.array(f.link('TempSensorInterface', { stored: true }), { stored: true, maxItems: 8 }),
};

export const TempSensorCombi = defineBlock<typeof fields, { pending: boolean }>({
  type: 'TempSensorCombi',
  role: 'sensor',
  homeAssistant: TEMP_SENSOR_ENTITIES,
  fields,
  implements: ['TempSensorInterface'],
  description: 'Combines several temperature sensors into one value',
  init: () => ({ pending: true }),
  // Null only because its sensors have not been read yet since the start.
  pending: (block) => block.state.pending,
  update(block, ctx) {
    const d = block.data;
    const values: number[] = [];
    let pending = false;
    for (const id of d.sensors) {
      if (id === block.id) continue;
      const sensor = ctx.resolve(id, 'TempSensorInterface');
      const v = sensor?.data.value;
      if (typeof v === 'number' && Number.isFinite(v)) values.push(v);
      else if (sensor && readingPending(sensor)) pending = true;
    }
    block.state.pending = values.length === 0 && pending;
    if (values.length === 0) d.value = null;
    else if (d.combineFunc === 'SENSOR_COMBI_FUNC_MIN') d.value = Math.min(...values);
    else if (d.combineFunc === 'SENSOR_COMBI_FUNC_MAX') d.value = Math.max(...values);
    else d.value = values.reduce((a, b) => a + b, 0) / values.length;
    return nextBeat(ctx.now, 1000);
  },
});
