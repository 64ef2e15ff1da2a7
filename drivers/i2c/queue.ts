// One transaction queue per I2C bus: every driver on a bus (DS2482 bridges, IO expanders,
// PWM chips) goes through the same QueuedI2cBus, so transactions never overlap and a slow chip
// delays the others on its bus but never the scheduler tick (callers await, ticks do not).
// It also counts the bits each transaction puts on the wire, for the bus-time figures.
import type { I2cBus } from './types.js';

/**
 * Bits on the wire per SMBus transaction: start, 9 bits per byte (8 + ACK), stop; a read byte
 * data adds a repeated start and the address again. Clock stretching and bus gaps not counted.
 */
export const WIRE_BITS = { sendByte: 20, receiveByte: 20, writeByte: 29, readByte: 39, probe: 20 } as const;

export interface I2cQueueStats {
  transactions: number;
  failures: number;
  /** Bits the transactions put on the wire (see WIRE_BITS). */
  wireBits: number;
  /** Time from the start to the end of each transaction, summed (ms). */
  busyMs: number;
  /** Transactions waiting now, and the most that ever waited. */
  waiting: number;
  maxWaiting: number;
}

export class QueuedI2cBus implements I2cBus {
  readonly name?: string;
  readonly stats: I2cQueueStats = { transactions: 0, failures: 0, wireBits: 0, busyMs: 0, waiting: 0, maxWaiting: 0 };
  private tail: Promise<unknown> = Promise.resolve();

  constructor(readonly inner: I2cBus) {
    this.name = inner.name;
  }

  private run<T>(bits: number, op: () => Promise<T>): Promise<T> {
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

  scan(first: number, last: number): Promise<number[]> {
    return this.run(WIRE_BITS.probe * (last - first + 1), () => this.inner.scan(first, last));
  }

  close(): Promise<void> {
    return this.tail.then(() => this.inner.close());
  }
}

/** The queue of a bus: the bus itself when it is one already. */
export function queued(bus: I2cBus): QueuedI2cBus {
  return bus instanceof QueuedI2cBus ? bus : new QueuedI2cBus(bus);
}
