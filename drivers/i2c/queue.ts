// One transaction queue per I2C bus: every driver on a bus (DS2482 bridges, IO expanders, PWM
// chips, sensors) goes through the same QueuedI2cBus, so transactions never overlap, in order,
// and a slow chip delays the others on its bus but never the scheduler tick (callers await,
// ticks do not). Drivers wait for conversions outside the queue, so a sensor that is measuring
// does not hold the bus. The queue is bounded (a driver loop gone wrong must not grow memory)
// and counts what the bus-time figures need: the bits each transaction puts on the wire.
import type { I2cBus } from './types.js';

/** Standard-mode clock. */
export const I2C_STANDARD_HZ = 100_000;
/** Transactions waiting beyond this are refused and counted as dropped. */
export const I2C_QUEUE_LIMIT = 64;

/** Bits (clocks) of one transfer of `dataBytes`: start, address byte + ACK, 9 per data byte, stop. */
export function transferBits(dataBytes: number): number {
  return 1 + 9 + 9 * dataBytes + 1;
}

/**
 * Bits on the wire per SMBus transaction. A read byte data is a one-byte write whose stop is a
 * repeated start, then a one-byte read. Clock stretching and bus gaps not counted.
 */
export const WIRE_BITS = {
  sendByte: transferBits(1),
  receiveByte: transferBits(1),
  writeByte: transferBits(2),
  readByte: 2 * transferBits(1) - 1,
  probe: transferBits(1),
} as const;

export class I2cQueueFullError extends Error {
  override name = 'I2cQueueFullError';
}

export interface I2cQueueStats {
  transactions: number;
  failures: number;
  /** Transactions refused because I2C_QUEUE_LIMIT were waiting. */
  dropped: number;
  /** Bits the transactions put on the wire (see transferBits, WIRE_BITS). */
  wireBits: number;
  /** Time from the start to the end of each transaction, summed (ms). */
  busyMs: number;
  /** Transactions waiting now, and the most that ever waited. */
  waiting: number;
  maxWaiting: number;
}

export class QueuedI2cBus implements I2cBus {
  readonly name?: string;
  readonly stats: I2cQueueStats = {
    transactions: 0,
    failures: 0,
    dropped: 0,
    wireBits: 0,
    busyMs: 0,
    waiting: 0,
    maxWaiting: 0,
  };
  private tail: Promise<unknown> = Promise.resolve();
  private closing: Promise<void> | null = null;

  constructor(
    readonly inner: I2cBus,
    readonly hz = I2C_STANDARD_HZ,
  ) {
    this.name = inner.name;
  }

  /** Time the counted bits take on the wire at the bus clock (ms). */
  get wireMs(): number {
    return (this.stats.wireBits * 1000) / this.hz;
  }

  private run<T>(bits: number, op: () => Promise<T>): Promise<T> {
    if (this.stats.waiting >= I2C_QUEUE_LIMIT) {
      this.stats.dropped++;
      return Promise.reject(
        new I2cQueueFullError(`I2C bus ${this.name ?? '?'}: ${this.stats.waiting} transactions waiting, refused`),
      );
    }
    this.stats.waiting++;
    this.stats.maxWaiting = Math.max(this.stats.maxWaiting, this.stats.waiting);
    const result = this.tail.then(async () => {
      this.stats.waiting--;
      const started = performance.now();
      this.stats.transactions++;
      this.stats.wireBits += bits;
      try {
        return await op();
      } catch (e) {
        this.stats.failures++;
        throw e;
      } finally {
        this.stats.busyMs += performance.now() - started;
      }
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  sendByte(address: number, byte: number): Promise<void> {
    return this.run(WIRE_BITS.sendByte, () => this.inner.sendByte(address, byte));
  }

  writeByte(address: number, command: number, byte: number): Promise<void> {
    return this.run(WIRE_BITS.writeByte, () => this.inner.writeByte(address, command, byte));
  }

  receiveByte(address: number): Promise<number> {
    return this.run(WIRE_BITS.receiveByte, () => this.inner.receiveByte(address));
  }

  readByte(address: number, command: number): Promise<number> {
    return this.run(WIRE_BITS.readByte, () => this.inner.readByte(address, command));
  }

  i2cWrite(address: number, bytes: Uint8Array): Promise<void> {
    return this.run(transferBits(bytes.length), () => this.inner.i2cWrite(address, bytes));
  }

  i2cRead(address: number, length: number): Promise<Uint8Array> {
    return this.run(transferBits(length), () => this.inner.i2cRead(address, length));
  }

  scan(first: number, last: number): Promise<number[]> {
    return this.run(WIRE_BITS.probe * (last - first + 1), () => this.inner.scan(first, last));
  }

  /** Closes the bus once, after the transactions already queued (every user of the bus may call it). */
  close(): Promise<void> {
    this.closing ??= this.tail.then(() => this.inner.close());
    return this.closing;
  }
}

/** The queue of a bus: the bus itself when it is one already. */
export function queued(bus: I2cBus): QueuedI2cBus {
  return bus instanceof QueuedI2cBus ? bus : new QueuedI2cBus(bus);
}
