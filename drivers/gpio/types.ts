// One GPIO interface, several backends (sysfs via onoff, emulated lines in drivers/sim).
export interface GpioLineConfig {
  /** Human name shown in the GpioPins block, e.g. "heater". */
  name: string;
  /** BCM line offset on the header chip (GPIO17 -> 17). */
  line: number;
  direction: 'out' | 'in';
  /** Relay boards that switch on a low level. Logical active = physical low. */
  activeLow?: boolean;
  /** Logical level the failsafe drives this output to (default false = inactive). */
  safeState?: boolean;
}

export interface GpioLine {
  readonly config: GpioLineConfig;
  /** Logical level (after activeLow), or null when the line cannot be read. */
  read(): Promise<boolean | null>;
  write(active: boolean): Promise<void>;
  close(): Promise<void>;
}

export interface GpioBackend {
  open(config: GpioLineConfig): Promise<GpioLine>;
  close(): Promise<void>;
}
