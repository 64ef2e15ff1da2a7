// The shapes the history ingest (ingest.ts) works with: its options, what it answers, and what it
// keeps of each publisher, key and field, and of each queued message.
import type { Logger } from '../log.js';
import type { HistoryDrops } from './drops.js';
import type { Parsed } from './flatten.js';
import type { HistoryLimits, IngestLimits } from './limits.js';
import type { HistoryStore } from './store.js';

export interface Metric {
  metric: string;
  value: number;
  timestamp: string;
}

export type PointsListener = (points: ReadonlyArray<{ field: string; t: number; v: number }>) => void;

export interface IngestOptions {
  /** Where the points go (the store, through the clock gate). */
  store: Pick<HistoryStore, 'write'>;
  /** Wall clock, epoch ms: the stamp of each message. */
  now: () => number;
  /** Monotonic ms, for the rates and idle times (a wall clock set back must not stop a publisher for an hour). */
  monotonic?: () => number;
  log: Logger;
  limits?: HistoryLimits;
  ingestLimits?: Partial<IngestLimits>;
  /** The controller's own history topic: exempt from the per-publisher limits and the queue bound. */
  ownTopic?: string;
  /**
   * The controller's own key (its service id): taken from `ownTopic` alone. Its fields are the
   * controller's, so a message with it on another topic (any client, a peer controller on its
   * own topic) would write values into them and use up the key's field budget, which drops the
   * controller's own new fields.
   */
  ownKey?: string;
  warnIntervalMs?: number;
  /** Where drops are counted (shared with the store); one of its own by default. */
  drops?: HistoryDrops;
}

export interface Publisher {
  tokens: number;
  refilled: number;
  lastSeen: number;
  keys: number;
}

/** The last value of one field; the same object sits in the key's entry and in the cache by metric name. */
export interface LastValue {
  metric: string;
  value: number;
  t: number;
  /** Monotonic time of its last value, for its idle time. */
  m: number;
}

export interface KeyEntry {
  fields: Map<string, LastValue>;
  topic: string;
  lastSeen: number;
}

export interface Queued {
  topic: string;
  payload: Buffer | string;
  bytes: number;
  t: number;
  /** Monotonic time of receipt. */
  m: number;
  /** The controller's own message, flattened when it was published (its payload is not read). */
  parsed?: Parsed;
}
