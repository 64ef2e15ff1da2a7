// TempSensorMock: a simulated temperature, setting plus optional sine fluctuations.
import { f } from '../codec/fields.js';
import { defineBlock } from '../runtime/types.js';
import { TEMP_SENSOR_ENTITIES } from './shared/entities.js';
import { nextBeat } from './shared/cadence.js';

const fields = {
  value: f.temp({ readonly: true, logged: true }),
  connected: f.bool({ logged: true, stored: true, default: true }),
  setting: f.temp({ stored: true, default: 20 }),
  fluctuations: f.array(
    f.object({
      amplitude: f.deltaTemp({ logged: true, stored: true }),
      period: f.duration({ stored: true }),
    }),
    { stored: true, maxItems: 8 },
  ),
};

export const TempSensorMock = defineBlock<typeof fields, { start: number }>({
  type: 'TempSensorMock',
  role: 'sensor',
  homeAssistant: TEMP_SENSOR_ENTITIES,
  fields,
  implements: ['TempSensorInterface'],
  description: 'A simulated temperature sensor',
  init: () => ({ start: NaN }),
  update(block, ctx) {
    const d = block.data;
    if (Number.isNaN(block.state.start)) block.state.start = ctx.now;
    const t = (ctx.now - block.state.start) / 1000;
    let value = d.setting ?? 0;
    let interval = 1000;
    for (const fl of d.fluctuations) {
      const period = fl.period ?? 0;
      const amplitude = fl.amplitude ?? 0;
      if (period > 0) {
        value += amplitude * Math.sin((2 * Math.PI * t) / period);
        interval = Math.min(interval, (period * 1000) / 256);
      } else {
        value += amplitude;
      }
    }
    d.value = d.connected ? value : null;
    return nextBeat(ctx.now, Math.max(10, Math.min(1000, interval)));
  },
});
