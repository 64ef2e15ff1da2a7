// The emulated devices and buses as the sim's inspection and control see them (the sim REST
// endpoints): their entries, finding one by name, injecting a fault, describing one. SimHardware
// (sim-hardware.ts) builds the entries and steps them.
import { romToKernelName } from '../onewire/address.js';
import {
  type OneWireSegment,
  SimDs18b20,
  type SimDs2408,
  type SimDs2413,
  SimMax31850,
  type SimThermocoupleFault,
} from './onewire-wire.js';
import type { SimDeviceSpec } from './sim-config.js';

export type SimModel = SimDs18b20 | SimMax31850 | SimDs2408 | SimDs2413;

export function isTempModel(m: SimModel): m is SimDs18b20 | SimMax31850 {
  return m instanceof SimDs18b20 || m instanceof SimMax31850;
}

export interface SimSegmentEntry {
  /** Named as the driver names the master that reaches it, e.g. `ds2482-sim-0x18-ch0`. */
  name: string;
  kind: 'ds2482' | 'w1' | 'ds2480b';
  segment: OneWireSegment;
}

export interface SimDeviceEntry {
  spec: SimDeviceSpec;
  model: SimModel;
  bus: SimSegmentEntry;
  /** A temperature set by hand, overriding the plant; null = follow the plant. */
  forced: number | null;
}

export type SimFault = 'crc' | 'power-on' | 'zero' | 'open' | 'short-gnd' | 'short-vcc' | 'clear';
/** MAX31850 thermocouple faults by their sim fault name. */
export const THERMOCOUPLE_FAULTS: Record<'open' | 'short-gnd' | 'short-vcc', SimThermocoupleFault> = {
  open: 'open circuit',
  'short-gnd': 'short to GND',
  'short-vcc': 'short to VCC',
};

export class SimNotFoundError extends Error {
  override name = 'SimNotFoundError';
}

/** A device by name, address (16 hex digits) or kernel name (28-...). */
export function findDevice(deviceList: SimDeviceEntry[], key: string): SimDeviceEntry {
  const k = key.trim();
  const lower = k.toLowerCase();
  const d = deviceList.find(
    (x) => x.spec.name === k || x.spec.address === lower || romToKernelName(x.spec.address) === lower,
  );
  if (!d)
    throw new SimNotFoundError(
      `no emulated device '${key}'; devices: ${deviceList.map((x) => x.spec.name).join(', ') || 'none'}`,
    );
  return d;
}

export function findSegment(segmentList: SimSegmentEntry[], name: string): SimSegmentEntry {
  const s = segmentList.find((x) => x.name === name);
  if (!s)
    throw new SimNotFoundError(
      `no emulated bus '${name}'; buses: ${segmentList.map((x) => x.name).join(', ') || 'none'}`,
    );
  return s;
}

/**
 * crc: garble the next `count` frames the device sends (Infinity = until cleared);
 * power-on: the chip restarts (a DS18B20 then holds the 85 degC power-on scratchpad);
 * zero: its data line reads all zeros (an all-zero scratchpad passes the CRC);
 * open / short-gnd / short-vcc: a MAX31850's thermocouple fault; clear: none.
 */
export function applyFault(d: SimDeviceEntry, fault: SimFault, count: number): void {
  const m = d.model;
  switch (fault) {
    case 'crc':
      m.faults.corruptReads = count;
      break;
    case 'power-on':
      m.powerOnReset();
      break;
    case 'zero':
      m.holdDataLow(true);
      break;
    case 'open':
    case 'short-gnd':
    case 'short-vcc':
      if (!(m instanceof SimMax31850))
        throw new RangeError(`'${d.spec.name}' is a ${d.spec.type}; ${fault} is a MAX31850 thermocouple fault`);
      m.setFault(THERMOCOUPLE_FAULTS[fault]);
      break;
    case 'clear':
      m.faults.corruptReads = 0;
      m.holdDataLow(false);
      if (m instanceof SimMax31850) m.setFault(null);
      break;
  }
}

export function describeDevice(d: SimDeviceEntry): Record<string, unknown> {
  const base: Record<string, unknown> = {
    name: d.spec.name,
    type: d.spec.type,
    address: d.spec.address,
    kernelName: romToKernelName(d.spec.address),
    bus: d.bus.name,
    plugged: d.model.plugged,
    faults: {
      crc: d.model.faults.corruptReads === Infinity ? 'always' : d.model.faults.corruptReads,
      zero: d.model.faults.zeroData,
    },
  };
  if (d.model instanceof SimMax31850) {
    return {
      ...base,
      sense: d.spec.sense,
      temperature: d.model.temperature,
      coldJunction: d.model.coldJunction,
      forced: d.forced !== null,
      thermocoupleFault: d.model.thermocoupleFault,
    };
  }
  if (d.model instanceof SimDs18b20) {
    return {
      ...base,
      sense: d.spec.sense,
      temperature: d.model.temperature,
      forced: d.forced !== null,
      powerOnValue: d.model.powerOnValue,
    };
  }
  const on = d.model.activeOutputs();
  const count = d.spec.type === 'DS2408' ? 8 : 2;
  const channels = (bits: number) =>
    Array.from({ length: count }, (_, i) => i + 1).filter((ch) => bits & (1 << (ch - 1)));
  // switchedOffChannels: every output switched off since the emulation started (did one glitch).
  return {
    ...base,
    outputs: d.spec.outputs,
    activeChannels: channels(on),
    switchedOffChannels: channels(d.model.switchedOff),
  };
}

export function describeSegment(s: SimSegmentEntry, deviceList: SimDeviceEntry[]): Record<string, unknown> {
  return {
    name: s.name,
    kind: s.kind,
    shorted: s.segment.isShorted,
    cut: !s.segment.isConnected,
    devices: deviceList.filter((d) => d.bus === s).map((d) => d.spec.name),
  };
}
