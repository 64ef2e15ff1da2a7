// Delivery through the outbox table: a message is stored (durably) for each channel before any
// send, taken out only when the channel took it, and retried with exponential backoff while the
// channel is down, across restarts and kill -9. A receiver may see a message twice after a crash
// between its answer and the delete; the stable message id lets it drop the copy.
import type { Logger } from '../log.js';
import type { Channel } from './channels/types.js';
import type { AlertStore, OutboxRow } from './store.js';
import type { AlertMessage, HistoryEntry } from './types.js';

export interface OutboxOptions {
  store: AlertStore;
  /** The channels that take messages (those with `send`); setChannels replaces them. */
  channels: Channel[];
  log: Logger;
  retryBaseMs: number;
  retryMaxMs: number;
  limit: number;
  maxAgeMs: number;
  record: (entry: HistoryEntry) => void;
  /**
   * Wall clock, epoch ms, the times of the rows are on. A jump is looked for first, and the
   * rows' times are moved with it (Alerts), so a retry is neither held back by a clock set back
   * nor a waiting message dropped as too old by a clock set forward.
   */
  now: () => number;
}

const BATCH = 20;
const DROP_LOG_INTERVAL_MS = 60000;
const STOP_WAIT_MS = 500;

export class Outbox {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  readonly counts = { queued: 0, delivered: 0, failedAttempts: 0, dropped: 0 };
  private droppedSinceLog = 0;
  private lastDropLog = -Infinity;

  private channels: Channel[];

  constructor(private readonly o: OutboxOptions) {
    this.channels = o.channels.filter((c) => c.send);
  }

  get channelNames(): string[] {
    return this.channels.map((c) => c.name);
  }

  /** The channels changed (set up, edited or removed from the dashboard): rows of a removed one are dropped when due. */
  setChannels(channels: Channel[]): void {
    this.channels = channels.filter((c) => c.send);
    for (const c of this.channels) this.o.store.dueNow(c.name, this.o.now());
    this.wake();
  }

  start(): void {
    this.stopped = false;
    // Times after now were written on a clock that was ahead (or this one is behind): due now.
    this.o.store.notAfter(this.o.now());
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // A send in flight does not hold up the shutdown: its row stays and goes again (same id).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.running?.catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }

  /** Store the message for every channel (durable on return), then try to send it. */
  enqueue(message: AlertMessage): void {
    if (!this.channels.length) return;
    this.o.store.enqueue(message, this.channelNames, this.o.now());
    this.counts.queued += this.channels.length;
    this.trim();
    this.wake();
  }

  private wake(delay = 0): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.running) return void this.running.then(() => this.wake());
      this.running = this.drain()
        .catch((e) => this.o.log.error({ err: e }, 'alert outbox: delivery stopped by an error; trying again later'))
        .finally(() => {
          this.running = null;
          this.scheduleNext();
        });
    }, delay);
    this.timer.unref();
  }

  private scheduleNext(): void {
    if (this.stopped) return;
    const next = this.o.store.nextDueAt();
    if (next !== null) this.wake(Math.max(0, next - this.o.now()));
  }

  private async drain(): Promise<void> {
    this.trim();
    while (!this.stopped) {
      const rows = this.o.store.due(this.o.now(), BATCH);
      if (!rows.length) return;
      await Promise.all(rows.map((r) => this.deliver(r)));
    }
  }

  private async deliver(row: OutboxRow): Promise<void> {
    const channel = this.channels.find((c) => c.name === row.channel);
    if (!channel?.send) {
      // Its channel was removed from the config since: nothing will ever take it.
      this.o.store.delivered(row.seq);
      this.drop(row, 'channel no longer configured');
      return;
    }
    try {
      const answer = await channel.send(row.message);
      if (this.stopped) return; // the database may be closed; the row goes again after a restart
      this.o.store.delivered(row.seq);
      this.counts.delivered++;
      this.o.record({
        at: new Date().toISOString(),
        event: 'delivered',
        key: row.message.key,
        messageId: row.messageId,
        channel: row.channel,
        text: `${row.message.event} delivered to ${row.channel} after ${row.attempts + 1} attempt(s): ${answer}`,
      });
    } catch (e) {
      if (this.stopped) return;
      const error = (e as Error).message;
      const delay = Math.min(this.o.retryMaxMs, this.o.retryBaseMs * 2 ** Math.min(row.attempts, 30));
      this.o.store.retryLater(row.seq, this.o.now() + delay, error);
      this.counts.failedAttempts++;
      if (row.attempts === 0) {
        this.o.record({
          at: new Date().toISOString(),
          event: 'failed',
          key: row.message.key,
          messageId: row.messageId,
          channel: row.channel,
          text: `${row.message.event} not delivered to ${row.channel}; retrying with backoff`,
          error,
        });
      }
      this.o.log.debug(
        { channel: row.channel, messageId: row.messageId, attempts: row.attempts + 1, retryInMs: delay, error },
        'alert delivery failed',
      );
    }
  }

  private trim(): void {
    const before = this.o.now() - this.o.maxAgeMs;
    for (const row of this.o.store.trim(this.o.limit, before))
      this.drop(row, row.createdAt < before ? 'too old' : 'outbox full');
  }

  /** The wall clock jumped: a wait in progress is measured again. */
  clockJumped(): void {
    if (!this.stopped && !this.running) this.wake();
  }

  private drop(row: OutboxRow, reason: string): void {
    this.counts.dropped++;
    this.droppedSinceLog++;
    this.o.record({
      at: new Date().toISOString(),
      event: 'dropped',
      key: row.message.key,
      messageId: row.messageId,
      channel: row.channel,
      text: `${row.message.event} for ${row.channel} dropped: ${reason}`,
      error: row.lastError ?? undefined,
    });
    const now = performance.now();
    if (now - this.lastDropLog >= DROP_LOG_INTERVAL_MS) {
      this.o.log.warn(
        { dropped: this.droppedSinceLog, total: this.counts.dropped, reason },
        'alert outbox: messages dropped',
      );
      this.lastDropLog = now;
      this.droppedSinceLog = 0;
    }
  }
}
