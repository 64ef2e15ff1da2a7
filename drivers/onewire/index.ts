// Public surface of the 1-Wire drivers.
export * from './types.js';
export * from './crc.js';
export * from './address.js';
export { searchRoms, SEARCH_ROM, ALARM_SEARCH, type SearchOptions } from './search.js';
export { selectDevice, ROM } from './rom-commands.js';
export * from './ds18b20.js';
export * from './ds2408.js';
export * from './ds2413.js';
export * from './max31850.js';
export { ProtocolBus, type ProtocolBusOptions, type ProtocolBusStats } from './protocol-bus.js';
export {
  Ds2482Chip,
  Ds2482Master,
  detectDs2482,
  probeDs2482,
  probeDs2482Buses,
  DS2482_ADDRESSES,
  type Ds2482Variant,
  type Ds2482Options,
  type ProbeOptions,
} from './ds2482.js';
export { Ds2480bMaster, openDs2480bBus, DS2480B, type Ds2480bOptions } from './ds2480b.js';
export * from './serial-link.js';
export * from './w1-sysfs.js';
export * from './io-modules.js';
export * from './poller.js';
