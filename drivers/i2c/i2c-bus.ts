// The real I2cBus over the `i2c-bus` npm package (optional, native). Loaded on first use so a
// machine without it (no build tools, not Linux) still runs everything else.
import type { I2cBus } from './types.js';

/** The slice of i2c-bus's PromisifiedBus used here. */
interface PromisifiedBus {
  sendByte(address: number, byte: number): Promise<void>;
  writeByte(address: number, command: number, byte: number): Promise<void>;
  receiveByte(address: number): Promise<number>;
  i2cWrite(address: number, length: number, buffer: Buffer): Promise<{ bytesWritten: number }>;
  i2cRead(address: number, length: number, buffer: Buffer): Promise<{ bytesRead: number; buffer: Buffer }>;
  readByte(address: number, command: number): Promise<number>;
  scan(first: number, last: number): Promise<number[]>;
  close(): Promise<void>;
}

interface I2cBusModule {
  openPromisified(busNumber: number, options?: { forceAccess?: boolean }): Promise<PromisifiedBus>;
}

export interface OpenI2cBusOptions {
  /** I2C_SLAVE_FORCE: talk to an address a kernel driver has claimed. Dangerous; default false. */
  forceAccess?: boolean;
  /** Module loader, replaceable in tests. */
  load?: () => Promise<unknown>;
}

export class I2cBusUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'I2cBusUnavailableError';
  }
}

async function loadModule(load: () => Promise<unknown>): Promise<I2cBusModule> {
  let mod: unknown;
  try {
    mod = await load();
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new I2cBusUnavailableError(
      `the optional 'i2c-bus' package could not be loaded (${why}); install it on the target (it builds a native module: needs python3, make, g++) or use --hardware sim`,
    );
  }
  const m = ((mod as { default?: unknown }).default ?? mod) as Partial<I2cBusModule>;
  if (typeof m.openPromisified !== 'function') {
    throw new I2cBusUnavailableError("the 'i2c-bus' package loaded but has no openPromisified(); unsupported version");
  }
  return m as I2cBusModule;
}

const moduleName = 'i2c-bus';

/** Opens /dev/i2c-<busNumber>. */
export async function openI2cBus(busNumber: number, options: OpenI2cBusOptions = {}): Promise<I2cBus> {
  const mod = await loadModule(options.load ?? (() => import(moduleName)));
  let bus: PromisifiedBus;
  try {
    bus = await mod.openPromisified(busNumber, { forceAccess: options.forceAccess ?? false });
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new Error(`cannot open /dev/i2c-${busNumber}: ${why}`);
  }
  return {
    name: String(busNumber),
    sendByte: (address, byte) => bus.sendByte(address, byte),
    writeByte: (address, command, byte) => bus.writeByte(address, command, byte),
    receiveByte: (address) => bus.receiveByte(address),
    i2cWrite: async (address, bytes) => {
      const { bytesWritten } = await bus.i2cWrite(address, bytes.length, Buffer.from(bytes));
      if (bytesWritten !== bytes.length)
        throw new Error(`0x${address.toString(16)}: wrote ${bytesWritten} of ${bytes.length} bytes`);
    },
    i2cRead: async (address, length) => {
      const { bytesRead, buffer } = await bus.i2cRead(address, length, Buffer.alloc(length));
      if (bytesRead !== length) throw new Error(`0x${address.toString(16)}: read ${bytesRead} of ${length} bytes`);
      return Uint8Array.from(buffer);
    },
    readByte: (address, command) => bus.readByte(address, command),
    scan: (first, last) => bus.scan(first, last),
    close: () => bus.close(),
  };
}
