// DS2480B emulator on a byte stream: calibration byte, command/data/check modes, reset and
// single-bit commands, configuration parameters, the search accelerator, 0xE3 escaping. It
// drives an emulated segment. Reach it in-process (SimSerialLink) or through a real
// pseudo-terminal pair made by socat (createDs2480bPty), so the driver's serial path is used.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BufferedLink, loadSerialPort } from '../onewire/serial-link.js';
import { OneWireSegment } from './onewire-wire.js';

type Mode = 'inactive' | 'command' | 'data' | 'check';

export class Ds2480bSim {
  readonly segment: OneWireSegment;
  readonly stats = { bytesIn: 0, bytesOut: 0, resets: 0, calibrations: 0 };
  /** Configuration parameter values by parameter code 1..7 (slew, 12V pulse, 5V pulse, write-1 low, sample offset, reserved, baud). */
  readonly params = [0, 0, 4, 4, 0, 4, 0, 0];
  private mode: Mode = 'inactive';
  private accelerator = false;

  constructor(segment: OneWireSegment = new OneWireSegment({ name: 'ds2480b' })) {
    this.segment = segment;
  }

  get currentMode(): Mode {
    return this.mode;
  }

  /** Power cycle or BREAK: the next byte is a calibration byte again. */
  powerCycle(): void {
    this.mode = 'inactive';
    this.accelerator = false;
    this.params.splice(0, 8, 0, 0, 4, 4, 0, 4, 0, 0);
  }

  /** Feeds bytes from the host; returns the bytes the chip sends back. */
  receive(bytes: ArrayLike<number>): number[] {
    const out: number[] = [];
    for (let i = 0; i < bytes.length; i++) this.byte(bytes[i]! & 0xff, out);
    this.stats.bytesIn += bytes.length;
    this.stats.bytesOut += out.length;
    return out;
  }

  private byte(b: number, out: number[]): void {
    switch (this.mode) {
      case 'inactive':
        // Timing calibration: consumed without a reply.
        this.stats.calibrations++;
        this.mode = 'command';
        return;
      case 'command':
        return this.command(b, out);
      case 'data':
        if (b === 0xe3) {
          this.mode = 'check';
          return;
        }
        return this.data(b, out);
      case 'check':
        if (b === 0xe3) {
          this.mode = 'data';
          return this.data(b, out);
        }
        this.mode = 'command';
        return this.command(b, out);
    }
  }

  private command(b: number, out: number[]): void {
    if (b === 0xe1) {
      this.mode = 'data';
      return;
    }
    if ((b & 0x01) === 0) return; // not a valid command byte: ignored
    if ((b & 0x80) === 0) {
      const code = (b >> 4) & 7;
      const value = (b >> 1) & 7;
      if (code === 0) {
        out.push((this.params[value] ?? 0) << 1);
        return;
      }
      this.params[code] = value;
      out.push(b & 0xfe);
      return;
    }
    switch ((b >> 5) & 3) {
      case 0: {
        const level = this.segment.slot(((b >> 4) & 1) as 0 | 1);
        out.push((b & 0xfc) | (level ? 0x03 : 0x00));
        return;
      }
      case 1:
        this.accelerator = ((b >> 4) & 1) === 1;
        return;
      case 2: {
        this.stats.resets++;
        const r = this.segment.reset();
        out.push(0xcc | (r === 'short' ? 0x00 : r === 'presence' ? 0x01 : 0x03));
        return;
      }
      default:
        out.push(b & 0xfc); // pulse: not emulated beyond its reply
    }
  }

  private data(b: number, out: number[]): void {
    if (!this.accelerator) {
      out.push(this.segment.touchByte(b));
      return;
    }
    // Search accelerator: four ROM bits per byte; bit 2k+1 is the host's choice for conflicts.
    let reply = 0;
    for (let k = 0; k < 4; k++) {
      const choice = ((b >> (2 * k + 1)) & 1) as 0 | 1;
      const id = this.segment.slot(1);
      const cmp = this.segment.slot(1);
      let dir: 0 | 1;
      let conflict = 0;
      if (id !== cmp) dir = id;
      else if (id === 0) {
        dir = choice;
        conflict = 1;
      } else {
        dir = 1;
        conflict = 1;
      }
      this.segment.slot(dir);
      reply |= (conflict << (2 * k)) | (dir << (2 * k + 1));
    }
    out.push(reply);
  }
}

/** In-process SerialLink straight into an emulator (no pty). */
export class SimSerialLink extends BufferedLink {
  readonly path: string;
  private closed = false;

  constructor(
    readonly sim: Ds2480bSim,
    path = 'sim',
  ) {
    super();
    this.path = path;
  }

  async write(bytes: ArrayLike<number>): Promise<void> {
    if (this.closed) throw new Error(`${this.path}: closed`);
    const reply = this.sim.receive(bytes);
    if (reply.length) queueMicrotask(() => this.deliver(reply));
  }

  async sendBreak(): Promise<void> {
    this.sim.powerCycle();
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

export interface Ds2480bPty {
  /** The device path for the driver (the other end of the pair). */
  path: string;
  sim: Ds2480bSim;
  close(): Promise<void>;
}

export interface Ds2480bPtyOptions {
  /** socat binary. Default `socat` from PATH. */
  socat?: string;
  /** How long to wait for socat to set up the pair. Default 5000 ms. */
  startTimeoutMs?: number;
}

function waitForSocat(child: ChildProcess, socat: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    const detach = (): void => {
      clearTimeout(timer);
      child.off('error', onError);
      child.off('exit', onExit);
      child.stderr?.off('data', onData);
      // Keep draining socat's log so it never blocks on a full pipe.
      child.stderr?.resume();
    };
    const fail = (e: Error): void => {
      detach();
      reject(e);
    };
    const onError = (e: NodeJS.ErrnoException): void =>
      fail(
        e.code === 'ENOENT'
          ? new Error(`'${socat}' not found: the DS2480B pty emulation needs socat (apt-get install -y socat)`)
          : new Error(`cannot run ${socat}: ${e.message}`),
      );
    const onExit = (code: number | null): void => fail(new Error(`socat exited with code ${code}: ${stderr.trim()}`));
    const onData = (chunk: Buffer): void => {
      stderr += chunk.toString();
      if (stderr.includes('starting data transfer loop')) {
        detach();
        resolve();
      }
    };
    const timer = setTimeout(
      () => fail(new Error(`socat did not start the pty pair within ${timeoutMs} ms; stderr: ${stderr.trim()}`)),
      timeoutMs,
    );
    child.on('error', onError);
    child.on('exit', onExit);
    child.stderr?.on('data', onData);
  });
}

/**
 * Creates a pseudo-terminal pair with socat, serves the emulator on one end through the
 * `serialport` package, and returns the other end's path for the real driver.
 */
export async function createDs2480bPty(sim: Ds2480bSim, options: Ds2480bPtyOptions = {}): Promise<Ds2480bPty> {
  const socat = options.socat ?? 'socat';
  const dir = mkdtempSync(join(tmpdir(), 'ds2480b-pty-'));
  const emulatorEnd = join(dir, 'emulator');
  const driverEnd = join(dir, 'ttyDS2480B');
  // Loaded here, not with the module: the sim is loaded on every sim start, socat only for a pty.
  const { spawn } = await import('node:child_process');
  const child = spawn(socat, ['-d', '-d', `pty,raw,echo=0,link=${emulatorEnd}`, `pty,raw,echo=0,link=${driverEnd}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.on('error', () => undefined); // reported through waitForSocat
  // socat outlives a process that exits without close() (process.exit, a crash): take it along.
  const killOnExit = (): void => {
    if (child.exitCode === null && child.pid !== undefined) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  const cleanup = (): void => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.pid !== undefined) child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForSocat(child, socat, options.startTimeoutMs ?? 5000);
  } catch (e) {
    cleanup();
    throw e;
  }
  type Port = InstanceType<Awaited<ReturnType<typeof loadSerialPort>>['SerialPort']>;
  let served: Port;
  try {
    const { SerialPort } = await loadSerialPort();
    const port = new SerialPort({ path: emulatorEnd, baudRate: 9600, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
    served = port;
  } catch (e) {
    cleanup();
    throw e;
  }
  served.on('error', () => undefined);
  served.on('data', (chunk: Buffer) => {
    const reply = sim.receive(chunk);
    if (reply.length) served.write(Buffer.from(reply));
  });
  return {
    path: driverEnd,
    sim,
    async close(): Promise<void> {
      if (served.isOpen) await new Promise<void>((r) => served.close(() => r()));
      const exited = new Promise<void>((r) => (child.exitCode !== null ? r() : child.once('exit', () => r())));
      cleanup();
      await exited;
    },
  };
}
