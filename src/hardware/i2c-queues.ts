// The one transaction queue of each I2C bus, by bus name: the DS2482 bridges, the IO chips and
// the sensors on a bus all use it. A queue that refuses transactions (full) is reported once a
// minute per bus.
import { I2C_QUEUE_LIMIT, queued, type QueuedI2cBus } from '../../drivers/i2c/queue.js';
import type { I2cBus } from '../../drivers/i2c/types.js';
import { WarningLimiter } from '../log/limit.js';
import type { Logger } from '../log.js';

export class I2cQueues {
  private readonly queues = new Map<string, QueuedI2cBus>();
  private readonly drops: WarningLimiter;
  private readonly dropsSeen = new Map<string, number>();

  constructor(log: Logger) {
    this.drops = new WarningLimiter(log);
  }

  /** The queue of an I2C bus; a bus opened again by name gets the queue it already has. */
  of(bus: I2cBus): QueuedI2cBus {
    const name = bus.name ?? String(this.queues.size);
    const known = this.queues.get(name);
    if (known && (known === bus || known.inner === bus)) return known;
    if (known) throw new Error(`I2C bus ${name} is open already; use its queue`);
    const q = queued(bus);
    this.queues.set(name, q);
    return q;
  }

  /** The queue of the bus opened by that name, if any. */
  named(name: string): QueuedI2cBus | undefined {
    return this.queues.get(name);
  }

  all(): QueuedI2cBus[] {
    return [...this.queues.values()];
  }

  /** One warning a minute per bus whose queue refused transactions since the last look. */
  reportDrops(): void {
    for (const [name, q] of this.queues) {
      const seen = this.dropsSeen.get(name) ?? 0;
      if (q.stats.dropped === seen) continue;
      if (
        this.drops.warn(
          `i2c:${name}`,
          { bus: name, dropped: q.stats.dropped },
          `I2C bus ${name}: ${q.stats.dropped - seen} transaction(s) refused, ${I2C_QUEUE_LIMIT} were waiting`,
        )
      )
        this.dropsSeen.set(name, q.stats.dropped);
    }
  }
}
