// TempSensorOneWire: a DS18B20 (family 28) or a MAX31850 thermocouple converter (family 3b) on
// any 1-Wire master, by address. value = reading + offset, null when the driver has no valid
// reading under 2 s old. The MAX31850 is the same block type (the Brewblox UI knows it), with the
// driver decoding by family; its readings of several hundred degC pass, and a thermocouple fault
// gives null with the fault named in `fault` and counted in `faults`.
import { f } from '../codec/fields.js';
import { HARDWARE_POLL_MS } from '../runtime/loop.js';
import { defineBlock } from '../runtime/types.js';
import { oneWireBusBlockId } from '../runtime/hardware.js';
import { TEMP_SENSOR_ENTITIES } from './shared/entities.js';

/** Without word from the driver of when the reading changes next (a sensor not found yet). */
const MAX_WAIT_MS = 1000;

const fields = {
  value: f.temp({ readonly: true, logged: true }),
  offset: f.deltaTemp({ stored: true, description: 'calibration added to every reading' }),
  address: f.address({
    stored: true,
    unique: true,
    description: '16 hex digits, family byte first: 28 DS18B20, 3b MAX31850 thermocouple',
  }),
  oneWireBusId: f.link('OneWireBusInterface', { readonly: true }),
  connected: f.bool({ readonly: true, description: 'the last read of the sensor succeeded' }),
  coldJunction: f.temp({ readonly: true, description: 'MAX31850: the converter chip (cold junction) temperature' }),
  fault: f.string({
    readonly: true,
    maxLength: 40,
    description:
      'MAX31850: thermocouple fault of the last read (open circuit, short to GND, short to VCC), empty when none',
  }),
  faults: f.number({
    readonly: true,
    integer: true,
    description: 'MAX31850: reads that reported a thermocouple fault',
  }),
};

export const TempSensorOneWire = defineBlock<typeof fields, { pending: boolean }>({
  type: 'TempSensorOneWire',
  role: 'sensor',
  homeAssistant: TEMP_SENSOR_ENTITIES,
  fields,
  implements: ['TempSensorInterface', 'OneWireDeviceInterface'],
  description: 'A DS18B20 temperature sensor or MAX31850 thermocouple on a 1-Wire bus',
  discovered: true,
  init: () => ({ pending: true }),
  pending: (block) => block.state.pending,
  onWrite(block, info, ctx) {
    const before = info.previous?.address;
    if (typeof before === 'string' && before !== block.data.address)
      ctx.afterCommit(() => ctx.hardware.services.onewire?.release(before));
  },
  onDelete(block, ctx) {
    const address = block.data.address;
    ctx.afterCommit(() => ctx.hardware.services.onewire?.release(address));
  },
  update(block, ctx) {
    const d = block.data;
    const ow = ctx.hardware.services.onewire;
    const r = ow ? ow.temperature(d.address, ctx.now) : null;
    d.value = r && r.value !== null ? r.value + (d.offset ?? 0) : null;
    d.connected = r?.connected ?? false;
    d.coldJunction = r?.coldJunction ?? null;
    d.fault = r?.fault ?? '';
    d.faults = r?.faults ?? null;
    block.state.pending = d.value === null && r?.pending === true;
    if (r?.bus) {
      const busId = oneWireBusBlockId(r.bus);
      d.oneWireBusId = ctx.resolve(busId, 'OneWireBusInterface') ? busId : null;
    }
    // Next when the reading can change (its next read, or going stale), so a new value or a
    // null is seen at once, and a Pi is not woken ten times a second for a 1 Hz sensor.
    const next = r?.nextChangeAt ?? ctx.now + MAX_WAIT_MS;
    return next > ctx.now ? Math.min(next, ctx.now + MAX_WAIT_MS) : ctx.now + HARDWARE_POLL_MS;
  },
});
