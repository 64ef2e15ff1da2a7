// Every bound of history ingest in one place (DESIGN §10 "Bounded everything"). A publisher is
// the MQTT topic a history message arrives on (`<root>/history/<publisher>`): the broker does not
// tell a subscriber which client sent a message, and Brewblox services each publish on a topic of
// their own. The controller's own topic is exempt from the per-publisher limits and the queue
// bound, so its history keeps flowing during a flood from anyone else.

export interface HistoryLimits {
  /** Largest payload in bytes. */
  maxBytes: number;
  /** Most numeric fields one message (one key) may carry. */
  maxFields: number;
  /** Longest key or field name: a block id may be 200 characters, and the paths of its fields follow it. */
  maxNameLength: number;
}

/** What one message may hold. */
export const DEFAULT_LIMITS: HistoryLimits = { maxBytes: 256 * 1024, maxFields: 2000, maxNameLength: 1000 };

export interface IngestLimits {
  /** Messages one publisher (topic) may send per second on average... */
  messagesPerSecond: number;
  /** ...and in one burst. Over that, its messages are dropped before they are parsed. */
  messagesBurst: number;
  /** Publishers (topics) tracked at once; idle ones go first. */
  maxPublishers: number;
  /** Keys one publisher may hold at once. */
  keysPerPublisher: number;
  /** Keys held at once by all publishers (the controller's own not counted). */
  maxKeys: number;
  /** Distinct fields one key may hold (those updated within idleMs); later new fields of that key are dropped. */
  maxFieldsPerKey: number;
  /** Distinct fields held at once by all keys (the last-value cache). */
  maxFields: number;
  /** A key (and a publisher, and a field of a key still active) not seen for this long ages out, freeing its place. */
  idleMs: number;
  /** Bytes of received messages waiting to be ingested; over it, arrivals are dropped. */
  maxQueuedBytes: number;
  /** Ingest works at most this long per turn of the event loop, then rests as long, so the tick, the state emission and the API get their turns. */
  sliceMs: number;
  /** At most one log line per this interval about limit drops. */
  dropLogIntervalMs: number;
}

export const INGEST_LIMITS: IngestLimits = {
  messagesPerSecond: 20,
  messagesBurst: 40,
  maxPublishers: 200,
  keysPerPublisher: 50,
  maxKeys: 1000,
  maxFieldsPerKey: 2000,
  maxFields: 20_000,
  idleMs: 10 * 60_000,
  maxQueuedBytes: 4 * 1024 * 1024,
  sliceMs: 10,
  dropLogIntervalMs: 60_000,
};

/**
 * A query of the embedded store decodes records at most this long per turn of the event loop, so a
 * large one (many fields over days, a CSV export) delays the control loop's ticks by no more; a
 * small query answers in one go.
 */
export const QUERY_SLICE_MS = 10;
/**
 * Queries of the embedded store decoding at once, and the longest line of those waiting: each
 * holds the points it decoded until it answers, so a client sending many at once would otherwise
 * hold all of theirs in memory together. One beyond the line is a 503.
 */
export const QUERY_TURNS = { running: 2, waiting: 32 };
/** A raw query that streams (the CSV export) holds about this many points of the embedded store at a time. */
export const RAW_SLICE_POINTS = 10_000;

/**
 * Field names the embedded store holds (in memory and in fields.jsonl, kept while their points
 * are, a year by default): past it, points of new fields are dropped, but the controller's own.
 */
export const MAX_FIELD_NAMES = 50_000;

/** Points the embedded store keeps in memory between flushes (or while its directory fails). */
export const MAX_PENDING_POINTS = 100_000;
/** Share over MAX_PENDING_POINTS kept for the controller's own history while others fill the batch. */
export const PENDING_RESERVE = 0.1;
