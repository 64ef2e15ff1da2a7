// TempSensorOneWire: a DS18B20 on any 1-Wire master, by address. value = reading + offset,
// null when the driver has no valid reading under 2 s old.
import { f } from '../codec/fields.js';
import { defineBlock } from '../runtime/types.js';
import { oneWireBusBlockId } from './one-wire-bus.js';
import { TEMP_SENSOR_ENTITIES } from './shared/entities.js';

// Frequent enough that a stale value turns null within a tick of the driver dropping it.
const UPDATE_MS = 100;

const fields = {
  value: f.temp({ readonly: true, logged: true }),
  offset: f.deltaTemp({ stored: true, description: 'calibration added to every reading' }),
  address: f.address({ stored: true, unique: true, description: '16 hex digits, family byte (28) first' }),
  oneWireBusId: f.link('OneWireBusInterface', { readonly: true }),
  connected: f.bool({ readonly: true, description: 'the last read of the sensor succeeded' }),
};

export const TempSensorOneWire = defineBlock<typeof fields>({
  type: 'TempSensorOneWire',
  role: 'sensor',
  homeAssistant: TEMP_SENSOR_ENTITIES,
  fields,
  implements: ['TempSensorInterface', 'OneWireDeviceInterface'],
  description: 'A DS18B20 temperature sensor on a 1-Wire bus',
  discovered: true,
  onWrite(block, info, ctx) {
    const before = info.previous?.address;
    if (typeof before === 'string' && before !== block.data.address) ctx.hardware.services.onewire?.release(before);
  },
  onDelete(block, ctx) {
    ctx.hardware.services.onewire?.release(block.data.address);
  },
  update(block, ctx) {
    const d = block.data;
    const ow = ctx.hardware.services.onewire;
    const r = ow ? ow.temperature(d.address, ctx.now) : null;
    d.value = r && r.value !== null ? r.value + (d.offset ?? 0) : null;
    d.connected = r?.connected ?? false;
    if (r?.bus) {
      const busId = oneWireBusBlockId(r.bus);
      d.oneWireBusId = ctx.resolve(busId, 'OneWireBusInterface') ? busId : null;
    }
    return ctx.now + UPDATE_MS;
  },
});
