// Declarative construction of emulated 1-Wire hardware: DS2482 bridges on an emulated I2C bus
// and/or a DS2480B, each channel populated with device models. Used by the `sim` hardware mode
// and by tests; the result exposes the device models so a thermal plant can set temperatures
// and read output latches.
import { createDs2482Sim, type Ds2482Sim, type Ds2482Variant, type SimI2cBus } from './ds2482-sim.js';
import { Ds2480bSim } from './ds2480b-sim.js';
import { OneWireSegment, SimDs18b20, SimDs2408, SimDs2413, SimMax31850, type SimSlave } from './onewire-wire.js';
import type { RomAddress } from '../onewire/types.js';

export type SimDeviceSpec =
  | { type: 'ds18b20'; address?: RomAddress; serial?: number | bigint; temperature?: number; name?: string }
  | { type: 'ds2408'; address?: RomAddress; serial?: number | bigint; powerOnLatches?: number; name?: string }
  | { type: 'ds2413'; address?: RomAddress; serial?: number | bigint; name?: string }
  | {
      type: 'max31850';
      address?: RomAddress;
      serial?: number | bigint;
      temperature?: number;
      coldJunction?: number;
      addressPins?: number;
      name?: string;
    };

export interface OneWireSimSpec {
  now?: () => number;
  bridges?: Array<{ address: number; variant: Ds2482Variant; channels: SimDeviceSpec[][] }>;
  ds2480b?: SimDeviceSpec[];
}

export interface OneWireSim {
  i2c: SimI2cBus;
  chips: Ds2482Sim[];
  ds2480b: Ds2480bSim | null;
  /** Every device model, in spec order. */
  devices: SimSlave[];
  /** Device models by the optional `name` given in the spec. */
  named: Map<string, SimSlave>;
  find(address: RomAddress): SimSlave | undefined;
}

export function createDevice(spec: SimDeviceSpec): SimSlave {
  const id = { address: spec.address, serial: spec.serial };
  switch (spec.type) {
    case 'ds18b20':
      return new SimDs18b20({ ...id, temperature: spec.temperature });
    case 'ds2408':
      return new SimDs2408({ ...id, powerOnLatches: spec.powerOnLatches });
    case 'ds2413':
      return new SimDs2413(id);
    case 'max31850':
      return new SimMax31850({
        ...id,
        temperature: spec.temperature,
        coldJunction: spec.coldJunction,
        addressPins: spec.addressPins,
      });
  }
}

export function buildOneWireSim(spec: OneWireSimSpec): OneWireSim {
  const bridges = spec.bridges ?? [];
  const setup = createDs2482Sim({
    chips: bridges.map((b) => ({ address: b.address, variant: b.variant })),
    now: spec.now,
  });
  const devices: SimSlave[] = [];
  const named = new Map<string, SimSlave>();
  const populate = (segment: OneWireSegment, list: SimDeviceSpec[]): void => {
    for (const d of list) {
      const model = segment.attach(createDevice(d));
      devices.push(model);
      if (d.name) named.set(d.name, model);
    }
  };
  for (const b of bridges) {
    b.channels.forEach((list, ch) => populate(setup.segment(b.address, ch), list));
  }
  let ds2480b: Ds2480bSim | null = null;
  if (spec.ds2480b) {
    const segment = new OneWireSegment({ name: 'ds2480b', now: spec.now });
    populate(segment, spec.ds2480b);
    ds2480b = new Ds2480bSim(segment);
  }
  return {
    i2c: setup.i2c,
    chips: setup.chips,
    ds2480b,
    devices,
    named,
    find: (address) => devices.find((d) => d.address === address),
  };
}
