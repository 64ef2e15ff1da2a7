// Emulated GPIO lines with the same semantics as the sysfs backend: opening an output drives it
// to its safe state, activeLow inverts, and a closed line keeps its last physical level.
// Tests and the thermal plant look at the physical pins through physical()/isActive().
import { safePhysicalLevel, toLogical, toPhysical, type PhysicalLevel } from './levels.js';
import type { GpioBackend, GpioLine, GpioLineConfig } from './types.js';

export interface SimGpioOptions {
  /** Number of lines on the emulated chip (a Pi 4 header chip has 58). */
  ngpio?: number;
  /** Physical level of lines nobody drives, by line offset (default 0, i.e. pulled down). */
  initial?: Record<number, PhysicalLevel>;
}

export interface SimLineState {
  line: number;
  physical: PhysicalLevel;
  /** Config of the current (or last) user of the line, if any. */
  config: GpioLineConfig | null;
  open: boolean;
  faulty: boolean;
}

interface Pin {
  physical: PhysicalLevel;
  config: GpioLineConfig | null;
  owner: SimLine | null;
  faulty: boolean;
}

class SimLine implements GpioLine {
  closed = false;

  constructor(
    readonly config: GpioLineConfig,
    private readonly pin: Pin,
    private readonly release: (line: SimLine) => void,
  ) {}

  async read(): Promise<boolean | null> {
    if (this.closed || this.pin.faulty) return null;
    return toLogical(this.config, this.pin.physical);
  }

  async write(active: boolean): Promise<void> {
    if (this.closed) throw new Error(`GPIO "${this.config.name}" is closed`);
    if (this.config.direction !== 'out') throw new Error(`GPIO "${this.config.name}" is an input`);
    if (this.pin.faulty) throw new Error(`GPIO "${this.config.name}": EIO (simulated fault)`);
    this.pin.physical = toPhysical(this.config, active);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.release(this);
  }
}

export class SimGpioBackend implements GpioBackend {
  readonly ngpio: number;
  private readonly pins = new Map<number, Pin>();
  private readonly initial: Record<number, PhysicalLevel>;

  constructor(options: SimGpioOptions = {}) {
    this.ngpio = options.ngpio ?? 58;
    this.initial = options.initial ?? {};
  }

  private pin(line: number): Pin {
    if (!Number.isInteger(line) || line < 0 || line >= this.ngpio) {
      throw new Error(`line ${line} is outside the emulated chip (0..${this.ngpio - 1})`);
    }
    let pin = this.pins.get(line);
    if (!pin) {
      pin = { physical: this.initial[line] ?? 0, config: null, owner: null, faulty: false };
      this.pins.set(line, pin);
    }
    return pin;
  }

  async open(config: GpioLineConfig): Promise<GpioLine> {
    const pin = this.pin(config.line);
    if (pin.owner) {
      throw new Error(`GPIO "${config.name}": line ${config.line} is in use by "${pin.owner.config.name}"`);
    }
    if (pin.faulty) throw new Error(`GPIO "${config.name}": EIO (simulated fault)`);
    if (config.direction === 'out') pin.physical = safePhysicalLevel(config);
    const line = new SimLine({ ...config }, pin, (released) => {
      if (pin.owner === released) pin.owner = null;
    });
    pin.config = line.config;
    pin.owner = line;
    return line;
  }

  /** Physical level on the pin. */
  physical(line: number): PhysicalLevel {
    return this.pin(line).physical;
  }

  /** Logical level as the line's (current or last) config sees it; plain level if never opened. */
  logical(line: number): boolean {
    const pin = this.pin(line);
    return pin.config ? toLogical(pin.config, pin.physical) : pin.physical === 1;
  }

  /** Whether the line configured under this name (or at this offset) is logically active. */
  isActive(nameOrLine: string | number): boolean {
    if (typeof nameOrLine === 'number') return this.logical(nameOrLine);
    for (const [line, pin] of this.pins) {
      if (pin.config?.name === nameOrLine) return this.logical(line);
    }
    throw new Error(`no emulated GPIO line named "${nameOrLine}"`);
  }

  /** Drives an input pin from outside (a switch, a float sensor). Outputs cannot be forced. */
  setInput(line: number, level: PhysicalLevel): void {
    const pin = this.pin(line);
    if (pin.owner && pin.owner.config.direction === 'out') {
      throw new Error(`line ${line} is driven as an output by "${pin.owner.config.name}"`);
    }
    pin.physical = level;
  }

  /** A faulty line fails opens and writes and reads as null. */
  setFault(line: number, faulty: boolean): void {
    this.pin(line).faulty = faulty;
  }

  state(line: number): SimLineState {
    const pin = this.pin(line);
    return { line, physical: pin.physical, config: pin.config, open: pin.owner !== null, faulty: pin.faulty };
  }

  async close(): Promise<void> {
    await Promise.all([...this.pins.values()].map((pin) => pin.owner?.close()));
  }
}
