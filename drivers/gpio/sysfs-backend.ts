// GPIO over the sysfs files (export, gpioN/direction, gpioN/value) with plain fs calls: no
// native module, so the failsafe command can rely on it even when onoff cannot load, and the
// root is configurable so tests can point it at a fake tree.
// activeLow is applied here in software; the kernel's active_low attribute is kept at 0 so that
// the value file always shows the physical level.
import { access, constants, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_GPIO_ROOT, findGpioChip, gpioNumber, type GpioChipInfo } from './chip-base.js';
import { safePhysicalLevel, toLogical, toPhysical, type PhysicalLevel } from './levels.js';
import type { GpioBackend, GpioLine, GpioLineConfig } from './types.js';

export interface SysfsBackendOptions {
  root?: string;
  chip: GpioChipInfo;
  /** How long to wait for gpioN/ to appear (and udev to fix its permissions) after export. */
  exportTimeoutMs?: number;
}

async function exists(path: string, mode: number = constants.F_OK): Promise<boolean> {
  try {
    await access(path, mode);
    return true;
  } catch {
    return false;
  }
}

function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code) return e.path ? `${e.code} on ${e.path}` : e.code;
  return e.message ?? String(err);
}

class SysfsLine implements GpioLine {
  private closed = false;

  constructor(
    readonly config: GpioLineConfig,
    readonly number: number,
    private readonly dir: string,
  ) {}

  async readPhysical(): Promise<PhysicalLevel | null> {
    try {
      const text = (await readFile(join(this.dir, 'value'), 'utf8')).trim();
      return text === '1' ? 1 : text === '0' ? 0 : null;
    } catch {
      return null;
    }
  }

  async read(): Promise<boolean | null> {
    const level = await this.readPhysical();
    return level === null ? null : toLogical(this.config, level);
  }

  async write(active: boolean): Promise<void> {
    if (this.closed) throw new Error(`GPIO "${this.config.name}" is closed`);
    if (this.config.direction !== 'out') throw new Error(`GPIO "${this.config.name}" is an input`);
    await writeFile(join(this.dir, 'value'), String(toPhysical(this.config, active)));
  }

  async close(): Promise<void> {
    // The line stays exported: sysfs keeps the last level after we let go.
    this.closed = true;
  }
}

export class SysfsGpioBackend implements GpioBackend {
  readonly root: string;
  readonly chip: GpioChipInfo;
  private readonly exportTimeoutMs: number;
  private readonly lines = new Set<SysfsLine>();

  constructor(options: SysfsBackendOptions) {
    this.root = options.root ?? DEFAULT_GPIO_ROOT;
    this.chip = options.chip;
    this.exportTimeoutMs = options.exportTimeoutMs ?? 2000;
  }

  /** Finds the header chip under root (or the one with the given label). */
  static async detect(options: { root?: string; label?: string } = {}): Promise<SysfsGpioBackend> {
    const chip = await findGpioChip(options);
    return new SysfsGpioBackend({ root: options.root, chip });
  }

  async open(config: GpioLineConfig): Promise<GpioLine> {
    const number = gpioNumber(this.chip, config.line);
    const dir = join(this.root, `gpio${number}`);
    const label = `GPIO "${config.name}" (line ${config.line}, sysfs ${number})`;
    try {
      await this.export(number, dir);
      if (await exists(join(dir, 'active_low'))) await writeFile(join(dir, 'active_low'), '0');
      if (config.direction === 'out') {
        const level = safePhysicalLevel(config);
        // "high"/"low" switch to output with that level in one step, so an active-low relay
        // never sees the low pulse that "out" would give it. value is written too, so the
        // level is right even if the line already was an output.
        await writeFile(join(dir, 'direction'), level === 1 ? 'high' : 'low');
        await writeFile(join(dir, 'value'), String(level));
      } else {
        await writeFile(join(dir, 'direction'), 'in');
      }
    } catch (err) {
      throw new Error(`${label}: ${reason(err)}`);
    }
    const line = new SysfsLine(config, number, dir);
    this.lines.add(line);
    return line;
  }

  private async export(number: number, dir: string): Promise<void> {
    if (!(await exists(dir))) {
      await writeFile(join(this.root, 'export'), String(number));
    }
    const value = join(dir, 'value');
    const deadline = performance.now() + this.exportTimeoutMs;
    while (!(await exists(value, constants.R_OK | constants.W_OK))) {
      if (performance.now() >= deadline) {
        throw new Error(`${value} did not become writable after export (permissions or udev rules?)`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.lines].map((line) => line.close()));
    this.lines.clear();
  }
}
