// The sim config's GPIO lines: the emulated backend with each line's level before the app opens
// it, the line configs the app opens, and whether a line drives a plant actuator.
import { SimGpioBackend } from '../gpio/sim-backend.js';
import type { PhysicalLevel } from '../gpio/levels.js';
import type { GpioLineConfig } from '../gpio/types.js';
import type { PlantActuator, SimGpioSpec } from './sim-config.js';

export function simGpioBackend(lines: SimGpioSpec[]): SimGpioBackend {
  const initial: Record<number, PhysicalLevel> = {};
  for (const g of lines) {
    if (g.direction === 'in' && g.level !== null) initial[g.line] = g.level;
    // An idle active-low relay input sits high (board pull-up), so it is off before the app opens the line.
    else if (g.direction === 'out' && g.activeLow) initial[g.line] = 1;
  }
  return new SimGpioBackend({ initial });
}

export function gpioLineConfigs(lines: SimGpioSpec[]): GpioLineConfig[] {
  return lines.map(({ name, line, direction, activeLow, safeState }) => ({
    name,
    line,
    direction,
    activeLow,
    safeState,
  }));
}

/** True when a line wired to `role` is on. */
export function gpioDrives(lines: SimGpioSpec[], gpio: SimGpioBackend, role: PlantActuator): boolean {
  for (const g of lines) {
    if (g.drives !== role) continue;
    if (gpio.physical(g.line) === (g.activeLow ? 0 : 1)) return true;
  }
  return false;
}
