// The configured GPIO lines behind a synchronous GpioAccess: reads come from a cache that
// service() refreshes, writes are queued and go out on the next service(). A line that cannot
// be opened stays listed and reads null; failures are counted and logged once per line. Output
// lines can also run a software PWM (soft-pwm.ts), which a plain write ends.
import type { GpioBackend, GpioLine, GpioLineConfig } from '../../drivers/gpio/types.js';
import type { Logger } from '../log.js';
import type { GpioAccess, GpioLineInfo } from '../runtime/hardware.js';
import { SoftPwm } from './soft-pwm.js';
import { HARDWARE_POLL_MS } from '../runtime/loop.js';

interface Entry {
  info: GpioLineInfo;
  line: GpioLine | null;
  value: boolean | null;
  pending: boolean | null;
  errors: number;
  lastError: string | null;
  pwm: SoftPwm | null;
  /**
   * A software PWM drove the line since it was last written: the cached level is one the PWM had
   * at the last read, not what the line holds now (a PWM stopped mid-period, or one set to 0 or
   * 100 %, which writes the line itself), so the next write goes out whatever it says.
   */
  pwmStopped: boolean;
  /** When a safe state switched the line off from active (see lostAt). */
  lostAt: number | null;
}

function text(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
}

export class GpioLines implements GpioAccess {
  private readonly entries: Entry[];
  private readonly byName = new Map<string, Entry>();
  private backend: GpioBackend | null = null;
  private stopped = false;
  unknownWrites = 0;

  constructor(
    configs: GpioLineConfig[],
    private readonly log: Logger,
  ) {
    this.entries = configs.map((c) => ({
      info: {
        name: c.name,
        line: c.line,
        direction: c.direction,
        activeLow: c.activeLow === true,
        safeState: c.safeState === true,
      },
      line: null,
      value: null,
      pending: null,
      errors: 0,
      lastError: null,
      pwm: null,
      pwmStopped: false,
      lostAt: null,
    }));
    for (const e of this.entries) this.byName.set(e.info.name, e);
  }

  /** Opens every line (outputs start at their safe state). */
  async open(backend: GpioBackend): Promise<void> {
    this.backend = backend;
    for (const e of this.entries) {
      try {
        e.line = await backend.open({ ...e.info });
      } catch (err) {
        this.fail(e, `cannot open: ${text(err)}`);
      }
    }
    await this.refresh();
  }

  /** Marks every line unavailable (no backend on this machine). */
  unavailable(reason: string): void {
    for (const e of this.entries) {
      e.lastError = reason;
    }
  }

  lines(): GpioLineInfo[] {
    return this.entries.map((e) => ({ ...e.info }));
  }

  read(name: string): boolean | null {
    return this.byName.get(name)?.value ?? null;
  }

  write(name: string, active: boolean): void {
    if (this.stopped) return;
    const e = this.byName.get(name);
    if (!e || e.info.direction !== 'out') {
      this.unknownWrites++;
      return;
    }
    e.pwm?.stop();
    e.pending = active;
  }

  pwm(name: string, duty: number, hz: number): void {
    if (this.stopped) return;
    const e = this.byName.get(name);
    if (!e || e.info.direction !== 'out' || !e.line) {
      this.unknownWrites++;
      return;
    }
    e.pending = null;
    e.pwmStopped = true;
    e.pwm ??= new SoftPwm(e.line, (err) => this.fail(e, `PWM write failed: ${text(err)}`));
    e.pwm.set(duty, hz);
  }

  /** When a safe state last switched the line off from active, or null. */
  lostAt(name: string): number | null {
    return this.byName.get(name)?.lostAt ?? null;
  }

  duty(name: string): number | null {
    const e = this.byName.get(name);
    if (!e) return null;
    if (e.pwm?.running) return e.pwm.duty;
    return e.value === null ? null : e.value ? 100 : 0;
  }

  /** When service() is next needed: at once for a queued write, regularly while inputs are read, else never. */
  nextServiceAt(now: number): number {
    let at = Infinity;
    for (const e of this.entries) {
      if (!e.line) continue;
      if (e.pending !== null) return now;
      if (e.info.direction === 'in') at = now + HARDWARE_POLL_MS;
    }
    return at;
  }

  async service(): Promise<void> {
    for (const e of this.entries) {
      if (e.pending === null || !e.line) continue;
      const value = e.pending;
      e.pending = null;
      if (value === e.value && !e.pwmStopped) continue;
      e.pwmStopped = false;
      try {
        await e.line.write(value);
      } catch (err) {
        this.fail(e, `write failed: ${text(err)}`);
      }
    }
    await this.refresh();
  }

  private async refresh(): Promise<void> {
    for (const e of this.entries) {
      e.value = e.line ? await e.line.read().catch(() => null) : null;
    }
  }

  private fail(e: Entry, message: string): void {
    e.errors++;
    if (e.lastError !== message) this.log.warn({ line: e.info.line }, `GPIO "${e.info.name}": ${message}`);
    e.lastError = message;
  }

  /**
   * Drives every output to its safe state now; later writes are ignored until resume(). Returns
   * the lines driven. A line that was active and is not in its safe state counts as switched off
   * at `now` (lostAt), for the constraints of its actuator.
   */
  async safeState(now: number): Promise<Array<{ name: string; line: number; active: boolean }>> {
    this.stopped = true;
    const driven: Array<{ name: string; line: number; active: boolean }> = [];
    for (const e of this.entries) {
      const wasOn = e.value === true || (e.pwm?.running ?? false);
      e.pwm?.stop();
      e.pending = null;
      if (!e.line || e.info.direction !== 'out') continue;
      if (wasOn && !e.info.safeState) e.lostAt = now;
      try {
        await e.line.write(e.info.safeState);
        driven.push({ name: e.info.name, line: e.info.line, active: e.info.safeState });
      } catch (err) {
        this.fail(e, `safe state failed: ${text(err)}`);
      }
    }
    await this.refresh();
    return driven;
  }

  /** Accept writes again after safeState() (control enabled again); the blocks drive the lines on their next update. */
  resume(): void {
    this.stopped = false;
  }

  async close(): Promise<void> {
    for (const e of this.entries) await e.line?.close().catch(() => undefined);
    await this.backend?.close().catch(() => undefined);
  }

  status(): Array<GpioLineInfo & { open: boolean; active: boolean | null; errors: number; lastError: string | null }> {
    return this.entries.map((e) => ({
      ...e.info,
      open: e.line !== null,
      active: e.value,
      errors: e.errors,
      lastError: e.lastError,
    }));
  }
}
