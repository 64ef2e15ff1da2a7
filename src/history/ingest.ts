// History ingest: every message on `<root>/history/#` (any publisher) is validated, flattened,
// stamped at receipt and handed to the store, the last-value cache (metrics API) and live
// stream listeners. Bad messages are dropped with a warning per topic at most once a minute.
import type { Logger } from '../log.js';
import { WarningLimiter } from '../log-limit.js';
import { DEFAULT_LIMITS, parseHistoryMessage, type HistoryLimits } from './flatten.js';
import type { HistoryStore } from './store.js';

export interface Metric {
  metric: string;
  value: number;
  timestamp: string;
}

export type PointsListener = (points: ReadonlyArray<{ field: string; t: number; v: number }>) => void;

export interface IngestOptions {
  store: HistoryStore;
  /** Wall clock, epoch ms. */
  now: () => number;
  log: Logger;
  limits?: HistoryLimits;
  /** Distinct fields one key may create; later new fields of that key are dropped. */
  maxFieldsPerKey?: number;
  /** Distinct keys kept at most. */
  maxKeys?: number;
  warnIntervalMs?: number;
}

export class HistoryIngest {
  private readonly cache = new Map<string, { value: number; t: number }>();
  private readonly keyFields = new Map<string, Set<string>>();
  private readonly listeners = new Set<PointsListener>();
  private readonly warnings: WarningLimiter;
  private readonly counts = { messages: 0, points: 0, dropped: 0, droppedFields: 0 };

  constructor(private readonly o: IngestOptions) {
    this.warnings = new WarningLimiter(o.log, { intervalMs: o.warnIntervalMs });
  }

  /** One raw MQTT message. Never throws. */
  handle(topic: string, payload: Buffer | string): void {
    this.counts.messages++;
    const parsed = parseHistoryMessage(payload, this.o.limits ?? DEFAULT_LIMITS);
    if (!parsed.ok) return this.drop(topic, parsed.reason);
    const t = this.o.now();
    let known = this.keyFields.get(parsed.key);
    if (!known) {
      if (this.keyFields.size >= (this.o.maxKeys ?? 1000)) return this.drop(topic, `more than ${this.o.maxKeys ?? 1000} history keys; key ${JSON.stringify(parsed.key)} refused`);
      this.keyFields.set(parsed.key, (known = new Set()));
    }
    const cap = this.o.maxFieldsPerKey ?? 2000;
    const fields = parsed.fields.filter(([f]) => known.has(f) || (known.size < cap && known.add(f)));
    if (fields.length < parsed.fields.length) {
      this.counts.droppedFields += parsed.fields.length - fields.length;
      this.drop(topic, `key ${JSON.stringify(parsed.key)} reached ${cap} fields; ${parsed.fields.length - fields.length} new fields dropped`, false);
    }
    if (!fields.length) return;
    this.counts.points += fields.length;
    for (const [f, v] of fields) this.cache.set(`${parsed.key}/${f}`, { value: v, t });
    try {
      this.o.store.write(parsed.key, fields, t);
    } catch (e) {
      this.o.log.error({ err: e }, 'history store refused points');
    }
    if (this.listeners.size) {
      const points = fields.map(([f, v]) => ({ field: `${parsed.key}/${f}`, t, v }));
      for (const l of this.listeners) l(points);
    }
  }

  private drop(topic: string, reason: string, whole = true): void {
    if (whole) this.counts.dropped++;
    this.warnings.warn(topic, { topic, reason }, `history message on ${topic} dropped: ${reason}`);
  }

  /** Latest values of the fields updated at or after `since`, in the order fields were first seen. */
  metrics(fields: string[], since: number): Metric[] {
    const wanted = new Set(fields);
    const out: Metric[] = [];
    for (const [metric, { value, t }] of this.cache) if (wanted.has(metric) && t >= since) out.push({ metric, value, timestamp: new Date(t).toISOString() });
    return out;
  }

  onPoints(listener: PointsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  status(): Record<string, unknown> {
    return { ...this.counts, keys: this.keyFields.size, fields: this.cache.size, warningsSuppressed: this.warnings.suppressed };
  }
}
