// One transaction queue per I2C bus: every transfer of every driver on the bus goes through it,
// one at a time, in order. Drivers wait for conversions outside the queue, so a sensor that
// is measuring does not hold the bus. The queue also adds up the time the transfers take on
// the wire at the bus clock, the figure a poll cycle is measured against.
import type { I2cBus } from './types.js';

/** Standard-mode clock. */
export const I2C_STANDARD_HZ = 100_000;
/** Transfers waiting beyond this are refused (a driver loop gone wrong must not grow memory). */
export const I2C_QUEUE_LIMIT = 64;

/** Clocks one transfer takes: start, address byte + ack, 9 clocks per data byte, stop. */
export function transferClocks(dataBytes: number): number {
  return 1 + 9 + 9 * dataBytes + 1;
}

export class I2cQueueFullError extends Error {
  override name = 'I2cQueueFullError';
}

export interface I2cQueueStats {
  transactions: number;
  errors: number;
  /** Transfers refused because the queue was full. */
  dropped: number;
  /** Time on the wire at `hz`, in microseconds, summed over every transfer. */
  wireMicros: number;
}

export class I2cQueue implements I2cBus {
  readonly name: string;
  readonly stats: I2cQueueStats = { transactions: 0, errors: 0, dropped: 0, wireMicros: 0 };
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  constructor(
    readonly bus: I2cBus,
    readonly hz = I2C_STANDARD_HZ,
  ) {
    this.name = bus.name ?? 'i2c';
  }

  get depth(): number {
    return this.pending;
  }

  private run<T>(dataBytes: number, op: () => Promise<T>): Promise<T> {
    if (this.pending >= I2C_QUEUE_LIMIT) {
      this.stats.dropped++;
      return Promise.reject(new I2cQueueFullError(`I2C bus ${this.name}: ${this.pending} transfers waiting, refused`));
    }
    this.pending++;
    const result = this.tail.then(async () => {
      this.stats.transactions++;
      this.stats.wireMicros += (transferClocks(dataBytes) * 1e6) / this.hz;
      try {
        return await op();
      } catch (e) {
        this.stats.errors++;
        throw e;
      } finally {
        this.pending--;
      }
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  sendByte(address: number, byte: number): Promise<void> {
    return this.run(1, () => this.bus.sendByte(address, byte));
  }

  writeByte(address: number, command: number, byte: number): Promise<void> {
    return this.run(2, () => this.bus.writeByte(address, command, byte));
  }

  receiveByte(address: number): Promise<number> {
    return this.run(1, () => this.bus.receiveByte(address));
  }

  i2cWrite(address: number, bytes: Uint8Array): Promise<void> {
    return this.run(bytes.length, () => this.bus.i2cWrite(address, bytes));
  }

  i2cRead(address: number, length: number): Promise<Uint8Array> {
    return this.run(length, () => this.bus.i2cRead(address, length));
  }

  scan(first: number, last: number): Promise<number[]> {
    return this.run(0, () => this.bus.scan(first, last));
  }

  close(): Promise<void> {
    return this.tail.then(() => this.bus.close());
  }
}
