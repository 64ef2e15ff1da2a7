// The emission loop: every interval, on a fixed cadence, history then state. History goes out
// only while connected and is never queued; state is retained, and is also published at once
// on every (re)connect so the retained copy is fresh. A cycle is skipped while the broker has
// not yet confirmed the previous one (a hung broker), so nothing piles up in the socket. The
// controller's own history goes to its own store every cycle all the same (onHistory): a broker
// away or hung is no gap in the controller's history.
import type { Logger } from '../log.js';
import { ALL, type BlockRuntime } from '../runtime/runtime.js';
import { Cadence } from './cadence.js';
import type { MqttConnection } from './connection.js';
import { stateMessage, type ControllerStatus } from './state.js';
import type { Topics } from './topics.js';

export interface EmissionCounts {
  cycles: number;
  history: number;
  state: number;
  /** Cycles skipped because the broker had not confirmed the previous one. */
  skipped: number;
  /** How late the state message was handed to the broker against its slot on the cadence, over
   *  the last cycles that published (ms): an overloaded controller shows here first. */
  lateMs: { p50: number; p99: number; max: number; samples: number };
}

/** Cycles the lateness figures cover: at the default 5 s, the last 10 minutes. */
const LATENESS_WINDOW = 120;

export class Emission {
  private readonly cadence: Cadence;
  private readonly counts = { cycles: 0, history: 0, state: 0, skipped: 0 };
  private readonly lateness: number[] = [];
  private latenessNext = 0;
  private readonly onConnect = () => this.publishState();
  /** Receives each cycle's history message (and the size of its text), published or not, after the cycle's state message. */
  onHistory: ((message: unknown, bytes: number) => void) | null = null;

  constructor(
    private readonly opts: {
      conn: MqttConnection;
      runtime: BlockRuntime;
      topics: Topics;
      key: string;
      ttl: string;
      intervalMs: number;
      status: () => ControllerStatus;
      log: Logger;
    },
  ) {
    this.cadence = new Cadence(opts.intervalMs, (due) => this.cycle(due));
  }

  start(): void {
    this.opts.conn.on('connect', this.onConnect);
    this.cadence.start();
  }

  stop(): void {
    this.cadence.stop();
    this.opts.conn.off('connect', this.onConnect);
  }

  stats(): EmissionCounts {
    const sorted = [...this.lateness].sort((a, b) => a - b);
    const at = (q: number) =>
      Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0) * 10) / 10;
    return { ...this.counts, lateMs: { p50: at(0.5), p99: at(0.99), max: at(1), samples: sorted.length } };
  }

  private cycle(due: number): void {
    this.counts.cycles++;
    const { conn } = this.opts;
    let history: { message: unknown; bytes: number } | null = null;
    if (conn.connected && !conn.clear) {
      this.counts.skipped++;
      conn.probe();
    } else if (conn.connected) {
      try {
        history = this.publishHistory();
      } catch (e) {
        this.opts.log.error({ err: e }, 'history emission failed');
      }
      if (this.publishState()) this.recordLateness(performance.now() - due);
      conn.probe();
    }
    // Not published (no broker, a hung one, or the publish failed): the own store takes it all the same.
    if (!history && this.onHistory) {
      try {
        history = this.historyMessage();
      } catch (e) {
        this.opts.log.error({ err: e }, 'history message failed');
      }
    }
    if (history && this.onHistory) {
      try {
        this.onHistory(history.message, history.bytes);
      } catch (e) {
        this.opts.log.error({ err: e }, 'own history ingest failed');
      }
    }
  }

  private recordLateness(ms: number): void {
    // Timers run on the loop's millisecond clock and can fire a fraction of a millisecond early.
    this.lateness[this.latenessNext] = Math.max(0, ms);
    this.latenessNext = (this.latenessNext + 1) % LATENESS_WINDOW;
  }

  /** The message and its size when it went to the broker. */
  private publishHistory(): { message: unknown; bytes: number } | null {
    const { conn, topics } = this.opts;
    const { message, bytes } = this.historyPayload();
    if (!conn.publish(topics.history, bytes)) return null;
    this.counts.history++;
    return { message, bytes: bytes.length };
  }

  /** The message and its size, not published. */
  private historyMessage(): { message: unknown; bytes: number } {
    const { message, bytes } = this.historyPayload();
    return { message, bytes: bytes.length };
  }

  /** `{key, data}`, data the numbers of each block's logged data (the runtime's history mode). */
  private historyPayload(): { message: unknown; bytes: Buffer } {
    const { runtime, key } = this.opts;
    const history = runtime.read(ALL, 'history');
    const bytes = history.within((data) => ({ key, data }));
    return { message: { key, data: history.json() }, bytes };
  }

  /** True when the message went to the broker. */
  private publishState(): boolean {
    const { conn, runtime, topics, key, ttl, status } = this.opts;
    if (!conn.connected) return false;
    try {
      const payload = runtime.read(ALL).within((blocks) =>
        stateMessage(key, ttl, {
          status: status(),
          blocks,
          relations: runtime.relations(),
          claims: runtime.claims(),
          blockSet: runtime.blockSet(),
        }),
      );
      if (!conn.publish(topics.state, payload, { retain: true })) return false;
      this.counts.state++;
      return true;
    } catch (e) {
      this.opts.log.error({ err: e }, 'state emission failed');
      return false;
    }
  }
}
