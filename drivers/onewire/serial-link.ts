// A minimal byte pipe for serial 1-Wire masters, and its adapter over the `serialport` package
// (optional, native; loaded on first use).
import { OneWireError } from './types.js';

export interface SerialLink {
  readonly path: string;
  write(bytes: ArrayLike<number>): Promise<void>;
  /** Resolves with exactly `count` bytes, or rejects with OneWireError TIMEOUT. */
  read(count: number, timeoutMs: number): Promise<Uint8Array>;
  /** Drops bytes received but not read yet. */
  discardInput(): Promise<void>;
  /** Optional serial BREAK (resets a DS2480B); links without it skip it. */
  sendBreak?(): Promise<void>;
  close(): Promise<void>;
}

/** Receive-side buffering shared by link implementations: subclasses call `deliver`. */
export abstract class BufferedLink implements SerialLink {
  abstract readonly path: string;
  private buffered: number[] = [];
  private waiter: { count: number; resolve: (b: Uint8Array) => void } | null = null;

  protected deliver(chunk: ArrayLike<number>): void {
    for (let i = 0; i < chunk.length; i++) this.buffered.push(chunk[i]! & 0xff);
    this.wake();
  }

  private wake(): void {
    if (this.waiter && this.buffered.length >= this.waiter.count) {
      const w = this.waiter;
      this.waiter = null;
      w.resolve(Uint8Array.from(this.buffered.splice(0, w.count)));
    }
  }

  abstract write(bytes: ArrayLike<number>): Promise<void>;
  abstract close(): Promise<void>;

  read(count: number, timeoutMs: number): Promise<Uint8Array> {
    if (this.waiter) return Promise.reject(new OneWireError('IO', `${this.path}: concurrent reads`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        reject(
          new OneWireError(
            'TIMEOUT',
            `${this.path}: ${count} byte(s) not received within ${timeoutMs} ms (got ${this.buffered.length})`,
          ),
        );
      }, timeoutMs);
      this.waiter = {
        count,
        resolve: (b) => {
          clearTimeout(timer);
          resolve(b);
        },
      };
      this.wake();
    });
  }

  async discardInput(): Promise<void> {
    this.buffered = [];
  }
}

/** The parts of serialport's SerialPort class used here. */
interface SerialPortLike {
  open(cb: (err: Error | null) => void): void;
  write(data: Buffer, cb?: (err: Error | null | undefined) => void): boolean;
  drain(cb: (err: Error | null) => void): void;
  close(cb?: (err: Error | null) => void): void;
  set(options: { brk?: boolean }, cb: (err: Error | null) => void): void;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  readonly isOpen: boolean;
}

export interface SerialPortModule {
  SerialPort: new (options: { path: string; baudRate: number; autoOpen: boolean }) => SerialPortLike;
}

export class SerialPortUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SerialPortUnavailableError';
  }
}

const moduleName = 'serialport';

/** Loads the optional `serialport` package, with a clear error when it (or its native binding) is missing. */
export async function loadSerialPort(
  load: () => Promise<unknown> = () => import(moduleName),
): Promise<SerialPortModule> {
  let mod: unknown;
  try {
    mod = await load();
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new SerialPortUnavailableError(
      `the optional 'serialport' package could not be loaded (${why}); install it (npm install serialport) to use DS2480B adapters, or use --hardware sim`,
    );
  }
  const m = mod as Partial<SerialPortModule> & { default?: Partial<SerialPortModule> };
  const SerialPort = m.SerialPort ?? m.default?.SerialPort;
  if (typeof SerialPort !== 'function')
    throw new SerialPortUnavailableError("the 'serialport' package has no SerialPort export");
  return { SerialPort };
}

function cbPromise(fn: (cb: (err: Error | null | undefined) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => fn((err) => (err ? reject(err) : resolve())));
}

class SerialPortLink extends BufferedLink {
  constructor(
    readonly path: string,
    private readonly port: SerialPortLike,
  ) {
    super();
    port.on('data', (chunk) => this.deliver(chunk));
    port.on('error', () => {
      // surfaced as read timeouts / write errors
    });
  }

  async write(bytes: ArrayLike<number>): Promise<void> {
    try {
      await cbPromise((cb) => this.port.write(Buffer.from(Array.from(bytes)), cb));
      await cbPromise((cb) => this.port.drain(cb));
    } catch (e) {
      throw new OneWireError('IO', `${this.path}: write failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  async sendBreak(): Promise<void> {
    await cbPromise((cb) => this.port.set({ brk: true }, cb));
    await new Promise((r) => setTimeout(r, 2));
    await cbPromise((cb) => this.port.set({ brk: false }, cb));
  }

  async close(): Promise<void> {
    if (this.port.isOpen) await cbPromise((cb) => this.port.close(cb));
  }
}

export interface OpenSerialLinkOptions {
  baudRate?: number;
  /** Module loader, replaceable in tests. */
  load?: () => Promise<unknown>;
}

/** Opens a serial device (e.g. /dev/ttyUSB0) at 9600 baud by default. */
export async function openSerialLink(path: string, options: OpenSerialLinkOptions = {}): Promise<SerialLink> {
  const { SerialPort } = await loadSerialPort(options.load);
  const port = new SerialPort({ path, baudRate: options.baudRate ?? 9600, autoOpen: false });
  try {
    await cbPromise((cb) => port.open(cb));
  } catch (e) {
    throw new OneWireError('IO', `cannot open ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return new SerialPortLink(path, port);
}
