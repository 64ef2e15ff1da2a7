// GPIO through the `onoff` package (sysfs + epoll, optional native dependency).
// onoff takes sysfs numbers, so every line offset is added to the header chip's base found by
// chip-base.ts. activeLow is applied in software (onoff's own activeLow is switched off) so
// that outputs can be opened with their safe physical level in one step.
import { findGpioChip, gpioNumber, type GpioChipInfo } from './chip-base.js';
import { safePhysicalLevel, toLogical, toPhysical, type PhysicalLevel } from './levels.js';
import type { GpioBackend, GpioLine, GpioLineConfig } from './types.js';

/** The part of onoff's Gpio class this backend uses. */
export interface OnoffGpio {
  read(): Promise<number>;
  write(value: PhysicalLevel): Promise<void>;
  unexport(): void;
}

export interface OnoffModule {
  Gpio: new (
    gpio: number,
    direction: 'in' | 'out' | 'high' | 'low',
    edge?: 'none',
    options?: { activeLow?: boolean; reconfigureDirection?: boolean },
  ) => OnoffGpio;
}

export type OnoffLoader = () => Promise<unknown>;

export class OnoffUnavailableError extends Error {
  override name = 'OnoffUnavailableError';
}

function message(err: unknown): string {
  return err instanceof Error ? err.message.split('\n')[0]! : String(err);
}

/** Loads onoff lazily so hosts without the native module (CI, a laptop) can still run the sim. */
export async function loadOnoff(load: OnoffLoader = () => import('onoff')): Promise<OnoffModule> {
  let mod: unknown;
  try {
    mod = await load();
  } catch (err) {
    throw new OnoffUnavailableError(
      `the optional dependency "onoff" could not be loaded (${message(err)}); ` +
        'on the Pi run "npm ci" so its native part (epoll) is built, or use the sysfs or sim backend',
    );
  }
  const candidates = [mod, (mod as { default?: unknown } | null)?.default];
  for (const candidate of candidates) {
    const Gpio = (candidate as { Gpio?: unknown } | null | undefined)?.Gpio;
    if (typeof Gpio === 'function') return { Gpio: Gpio as OnoffModule['Gpio'] };
  }
  throw new OnoffUnavailableError('the "onoff" module does not export a Gpio class');
}

export interface OnoffBackendOptions {
  chip: GpioChipInfo;
  onoff: OnoffModule;
  /** Unexport lines on close (default false: sysfs keeps the level, the failsafe relies on it). */
  unexportOnClose?: boolean;
}

class OnoffLine implements GpioLine {
  private closed = false;

  constructor(
    readonly config: GpioLineConfig,
    private readonly gpio: OnoffGpio,
    private readonly unexportOnClose: boolean,
  ) {}

  async read(): Promise<boolean | null> {
    if (this.closed) return null;
    try {
      const value = await this.gpio.read();
      return toLogical(this.config, value === 1 ? 1 : 0);
    } catch {
      return null;
    }
  }

  async write(active: boolean): Promise<void> {
    if (this.closed) throw new Error(`GPIO "${this.config.name}" is closed`);
    if (this.config.direction !== 'out') throw new Error(`GPIO "${this.config.name}" is an input`);
    await this.gpio.write(toPhysical(this.config, active));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.unexportOnClose) this.gpio.unexport();
  }
}

export class OnoffGpioBackend implements GpioBackend {
  readonly chip: GpioChipInfo;
  private readonly onoff: OnoffModule;
  private readonly unexportOnClose: boolean;
  private readonly lines = new Set<OnoffLine>();

  constructor(options: OnoffBackendOptions) {
    this.chip = options.chip;
    this.onoff = options.onoff;
    this.unexportOnClose = options.unexportOnClose ?? false;
  }

  /** Loads onoff and finds the header chip; `root` only moves the chip lookup (onoff itself always uses /sys/class/gpio). */
  static async create(
    options: { root?: string; label?: string; load?: OnoffLoader; unexportOnClose?: boolean } = {},
  ): Promise<OnoffGpioBackend> {
    const onoff = await loadOnoff(options.load);
    const chip = await findGpioChip({ root: options.root, label: options.label });
    return new OnoffGpioBackend({ chip, onoff, unexportOnClose: options.unexportOnClose });
  }

  async open(config: GpioLineConfig): Promise<GpioLine> {
    const number = gpioNumber(this.chip, config.line);
    const direction = config.direction === 'out' ? (safePhysicalLevel(config) === 1 ? 'high' : 'low') : 'in';
    let gpio: OnoffGpio;
    try {
      gpio = new this.onoff.Gpio(number, direction, 'none', { activeLow: false, reconfigureDirection: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const hint =
        code === 'EINVAL'
          ? ` (sysfs number ${number} = ${this.chip.name} base ${this.chip.base} + line ${config.line} was refused)`
          : code === 'EACCES'
            ? ' (is the service user in the gpio group?)'
            : '';
      throw new Error(`GPIO "${config.name}" (line ${config.line}, sysfs ${number}): ${message(err)}${hint}`);
    }
    const line = new OnoffLine({ ...config }, gpio, this.unexportOnClose);
    this.lines.add(line);
    return line;
  }

  async close(): Promise<void> {
    await Promise.all([...this.lines].map((line) => line.close()));
    this.lines.clear();
  }
}
