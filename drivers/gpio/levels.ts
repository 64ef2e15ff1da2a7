// Logical <-> physical level mapping shared by every backend.
// Logical true = "active" (relay energised); activeLow lines are active at physical 0.
import type { GpioLineConfig } from './types.js';

export type PhysicalLevel = 0 | 1;

export function toPhysical(config: GpioLineConfig, active: boolean): PhysicalLevel {
  return active !== (config.activeLow === true) ? 1 : 0;
}

export function toLogical(config: GpioLineConfig, level: PhysicalLevel): boolean {
  return (level === 1) !== (config.activeLow === true);
}

/** The logical level an output takes on open and from the failsafe. */
export function safeState(config: GpioLineConfig): boolean {
  return config.safeState === true;
}

export function safePhysicalLevel(config: GpioLineConfig): PhysicalLevel {
  return toPhysical(config, safeState(config));
}
