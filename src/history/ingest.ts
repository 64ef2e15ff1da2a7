// History ingest: every message on `<root>/history/#` is stamped at receipt and queued; the queue
// is worked through in short slices (limits.ts) so control, the state emission and the API never
// wait behind it. Each message is validated, flattened and handed to the store, the last-value
// cache (metrics API) and live stream listeners. Bad messages are dropped with a warning per
// topic at most once a minute; every drop (a message refused, a field whose name no store can
// hold, what the limits drop) is counted by reason in the status (drops.ts).
import { WarningLimiter } from '../log/limit.js';
import { HistoryDrops } from './drops.js';
import {
  fieldsMemo,
  historyFields,
  parseHistoryMessage,
  REFUSED,
  sizeProblem,
  type FieldDrops,
  type Parsed,
} from './flatten.js';
import { DEFAULT_LIMITS, INGEST_LIMITS, type IngestLimits } from './limits.js';
import type { IngestOptions, KeyEntry, LastValue, Metric, PointsListener, Publisher, Queued } from './ingest-types.js';

export type { IngestOptions, Metric, PointsListener } from './ingest-types.js';

export class HistoryIngest {
  private readonly cache = new Map<string, LastValue>();
  private readonly keys = new Map<string, KeyEntry>();
  private readonly publishers = new Map<string, Publisher>();
  private readonly listeners = new Set<PointsListener>();
  private readonly warnings: WarningLimiter;
  private readonly counts = { messages: 0, points: 0, dropped: 0, droppedFields: 0 };
  private readonly lim: IngestLimits;
  readonly drops: HistoryDrops;
  private queue: Queued[] = [];
  private queueHead = 0;
  private queuedBytes = 0;
  private scheduled: NodeJS.Immediate | NodeJS.Timeout | null = null;
  private lastSweep = 0;
  private lastFieldSweep = Number.NEGATIVE_INFINITY;
  /** The own message's blocks, flattened once per change (historyFields). */
  private readonly ownMemo = fieldsMemo();

  private readonly mono: () => number;

  constructor(private readonly o: IngestOptions) {
    this.mono = o.monotonic ?? (() => performance.now());
    this.lim = { ...INGEST_LIMITS, ...o.ingestLimits };
    this.drops = o.drops ?? new HistoryDrops(o.log, { intervalMs: this.lim.dropLogIntervalMs, now: o.now });
    this.warnings = new WarningLimiter(o.log, { intervalMs: o.warnIntervalMs });
  }

  /** One raw MQTT message: admitted (or dropped) now, ingested in a later slice. Never throws. */
  handle(topic: string, payload: Buffer | string): void {
    this.counts.messages++;
    const t = this.o.now();
    const m = this.mono();
    const own = topic === this.o.ownTopic;
    if (!own && !this.admitPublisher(topic, m)) {
      this.counts.dropped++;
      return;
    }
    const bytes = payload.length;
    // Too large to be a history message: refused now, not held in the queue until its turn.
    const tooLarge = own || bytes === 0 ? null : sizeProblem(bytes, this.o.limits ?? DEFAULT_LIMITS);
    if (tooLarge) return this.invalid(topic, REFUSED.size, tooLarge, false);
    if (!own && this.queuedBytes + bytes > this.lim.maxQueuedBytes) {
      this.counts.dropped++;
      return this.drops.dropMessage(
        'queue full',
        false,
        `${this.queuedBytes} bytes of history messages wait to be ingested (limit ${this.lim.maxQueuedBytes}); message on ${topic} dropped`,
      );
    }
    this.queue.push({ topic, payload, bytes, t, m });
    this.queuedBytes += bytes;
    this.schedule(0);
  }

  /**
   * The controller's own history message, handed over by the emission as it is published (the
   * subscription skips it on the bus), so it is neither parsed back nor queued. `bytes`: the size
   * of the published text. Validated, counted and delivered as a message from the own topic; a
   * block whose part is the same object as last time is not flattened again.
   */
  own(message: unknown, bytes: number): void {
    this.counts.messages++;
    const topic = this.o.ownTopic ?? '';
    const limits = this.o.limits ?? DEFAULT_LIMITS;
    const tooLarge = sizeProblem(bytes, limits);
    const parsed: Parsed = tooLarge
      ? { ok: false, reason: REFUSED.size, detail: tooLarge }
      : historyFields(message, limits, this.ownMemo);
    // Behind the messages still queued, stamped before it: stored first, theirs would be behind the
    // newest stored time, and the clock gate would drop them as if the clock had been set back.
    // Queued beside them it is exempt from the bound (no bytes counted).
    if (this.queueHead < this.queue.length) {
      this.queue.push({ topic, payload: '', bytes: 0, t: this.o.now(), m: this.mono(), parsed });
      return;
    }
    this.accept(topic, parsed, this.o.now(), this.mono());
  }

  /** Ingest everything queued now (tests, shutdown). */
  drain(): void {
    while (this.queueHead < this.queue.length) this.ingestNext();
    this.compact();
  }

  private schedule(restMs: number): void {
    if (this.scheduled) return;
    const run = () => {
      this.scheduled = null;
      this.slice();
    };
    this.scheduled = restMs > 0 ? setTimeout(run, restMs) : setImmediate(run);
  }

  private slice(): void {
    const start = performance.now();
    while (this.queueHead < this.queue.length && performance.now() - start < this.lim.sliceMs) this.ingestNext();
    this.compact();
    if (this.queueHead < this.queue.length) this.schedule(Math.max(1, Math.round(performance.now() - start)));
  }

  private compact(): void {
    if (this.queueHead === this.queue.length) {
      this.queue = [];
      this.queueHead = 0;
    } else if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.queueHead);
      this.queueHead = 0;
    }
  }

  private ingestNext(): void {
    const m = this.queue[this.queueHead]!;
    this.queue[this.queueHead++] = undefined as never;
    this.queuedBytes -= m.bytes;
    if (m.parsed) this.accept(m.topic, m.parsed, m.t, m.m);
    else this.ingest(m.topic, m.payload, m.t, m.m);
  }

  /** Per-publisher token bucket, checked before parsing: a flood costs a map look-up per message. */
  private admitPublisher(topic: string, t: number): boolean {
    let p = this.publishers.get(topic);
    if (!p) {
      if (this.publishers.size >= this.lim.maxPublishers) this.sweep(t);
      if (this.publishers.size >= this.lim.maxPublishers) {
        this.drops.dropMessage(
          'publishers',
          false,
          `${this.lim.maxPublishers} publishers (topics) are active; message on ${topic} dropped`,
        );
        return false;
      }
      this.publishers.set(topic, (p = { tokens: this.lim.messagesBurst, refilled: t, lastSeen: t, keys: 0 }));
    }
    p.tokens = Math.min(this.lim.messagesBurst, p.tokens + ((t - p.refilled) / 1000) * this.lim.messagesPerSecond);
    p.refilled = t;
    p.lastSeen = t;
    if (p.tokens < 1) {
      this.drops.dropMessage(
        'rate',
        false,
        `${topic} sends more than ${this.lim.messagesPerSecond} history messages a second`,
      );
      return false;
    }
    p.tokens--;
    return true;
  }

  /** Keys and publishers not seen for `idleMs` age out (at most once a second). */
  private sweep(t: number): void {
    if (t - this.lastSweep < 1000) return;
    this.lastSweep = t;
    for (const [key, e] of this.keys) if (t - e.lastSeen > this.lim.idleMs) this.forgetKey(key, e);
    for (const [topic, p] of this.publishers)
      if (t - p.lastSeen > this.lim.idleMs && p.keys === 0) this.publishers.delete(topic);
  }

  /**
   * Fields not updated for `idleMs` age out of keys that are still active (a renamed or deleted
   * block's, those of a unit no longer used), at most once a second: the controller's own key is
   * never idle, and the fields it had ever sent used up its budget, so a block created after some
   * 2000 field names had come and gone lost its history until a restart.
   */
  private sweepFields(m: number): void {
    if (m - this.lastFieldSweep < 1000) return;
    this.lastFieldSweep = m;
    for (const e of this.keys.values())
      for (const [f, c] of e.fields)
        if (m - c.m > this.lim.idleMs) {
          e.fields.delete(f);
          // Another key's field may name the same series (key `a/b`, field `c`; key `a`, field `b/c`).
          if (this.cache.get(c.metric) === c) this.cache.delete(c.metric);
        }
  }

  private forgetKey(key: string, e: KeyEntry): void {
    for (const c of e.fields.values()) if (this.cache.get(c.metric) === c) this.cache.delete(c.metric);
    this.keys.delete(key);
    const p = this.publishers.get(e.topic);
    if (p) p.keys--;
  }

  private keyCount(): number {
    let n = 0;
    for (const e of this.keys.values()) if (e.topic !== this.o.ownTopic) n++;
    return n;
  }

  /** The key's entry, or a reason it is refused. */
  private keyFor(key: string, topic: string, t: number): KeyEntry | string {
    const known = this.keys.get(key);
    if (known) {
      known.lastSeen = t;
      return known;
    }
    if (topic !== this.o.ownTopic) {
      const p = this.publishers.get(topic);
      const full = () =>
        p && p.keys >= this.lim.keysPerPublisher
          ? `${topic} already holds ${this.lim.keysPerPublisher} history keys`
          : this.keyCount() >= this.lim.maxKeys
            ? `more than ${this.lim.maxKeys} history keys`
            : null;
      if (full()) this.sweep(t);
      const reason = full();
      if (reason) return `${reason}; key ${JSON.stringify(key)} refused`;
    }
    const entry: KeyEntry = { fields: new Map(), topic, lastSeen: t };
    this.keys.set(key, entry);
    const p = this.publishers.get(topic);
    if (p) p.keys++;
    return entry;
  }

  private ingest(topic: string, payload: Buffer | string, t: number, m: number): void {
    this.accept(topic, parseHistoryMessage(payload, this.o.limits ?? DEFAULT_LIMITS), t, m);
  }

  /** `t`: the stamp (wall clock); `m`: the monotonic time of receipt, for the idle times. */
  private accept(topic: string, parsed: Parsed, t: number, m: number): void {
    const own = topic === this.o.ownTopic;
    if (!parsed.ok) return this.invalid(topic, parsed.reason, parsed.detail, own);
    // Stored names are `key/field`, so a key `<own>/Beer Sensor` names the controller's fields too.
    const ownKey = this.o.ownKey;
    if (!own && ownKey !== undefined && (parsed.key === ownKey || parsed.key.startsWith(`${ownKey}/`)))
      return this.invalid(
        topic,
        REFUSED.ownKey,
        `key ${JSON.stringify(parsed.key)} is (or is under) this controller's own, taken from ${this.o.ownTopic ?? 'its own topic'} alone`,
        false,
      );
    if (parsed.dropped) this.fieldsDropped(topic, parsed.key, parsed.dropped, own);
    const entry = this.keyFor(parsed.key, topic, m);
    if (typeof entry === 'string') {
      this.counts.dropped++;
      return this.drops.dropPoints('keys', parsed.fields.length, own, entry);
    }
    const known = entry.fields;
    const cap = this.lim.maxFieldsPerKey;
    // Known fields update their cached value in place: no name is built per point.
    const held: LastValue[] = [];
    let fields = parsed.fields;
    for (let i = 0; i < parsed.fields.length; i++) {
      const f = parsed.fields[i]![0];
      const v = parsed.fields[i]![1];
      let c = known.get(f);
      if (!c && (known.size >= cap || this.cache.size >= this.lim.maxFields)) this.sweepFields(m);
      if (!c && known.size < cap && this.cache.size < this.lim.maxFields) {
        known.set(f, (c = { metric: `${parsed.key}/${f}`, value: v, t, m }));
        this.cache.set(c.metric, c);
      }
      if (!c) continue;
      c.value = v;
      c.t = t;
      c.m = m;
      held.push(c);
    }
    if (held.length < parsed.fields.length) {
      const n = parsed.fields.length - held.length;
      this.counts.droppedFields += n;
      this.drops.dropPoints(
        'fields',
        n,
        own,
        known.size >= cap
          ? `key ${JSON.stringify(parsed.key)} reached ${cap} fields; ${n} new fields dropped`
          : `${this.lim.maxFields} history fields are held; ${n} new fields of key ${JSON.stringify(parsed.key)} dropped`,
      );
      fields = parsed.fields.filter(([f]) => known.has(f));
    }
    if (!fields.length) return;
    this.counts.points += fields.length;
    try {
      this.o.store.write(parsed.key, fields, t, own);
    } catch (e) {
      this.o.log.error({ err: e }, 'history store refused points');
    }
    if (this.listeners.size) {
      const points = held.map((c, i) => ({ field: c.metric, t, v: fields[i]![1] }));
      for (const l of this.listeners) l(points);
    }
  }

  /** A malformed message: counted, and a warning per topic at most once a minute. */
  private invalid(topic: string, reason: string, detail: string, own: boolean): void {
    this.counts.dropped++;
    this.warnings.warn(topic, { topic, reason }, `history message on ${topic} dropped: ${detail}`);
    this.drops.dropMessage(reason, own, `message on ${topic}: ${detail}`, true);
  }

  /** Fields of a message left out (the rest is stored): counted, and a warning per topic at most once a minute. */
  private fieldsDropped(topic: string, key: string, dropped: FieldDrops, own: boolean): void {
    for (const [reason, n] of Object.entries(dropped.counts)) {
      const detail = `${n} field(s) of key ${JSON.stringify(key)} on ${topic} not stored (${reason}), e.g. ${JSON.stringify(dropped.example)}`;
      this.warnings.warn(topic, { topic, reason }, `history ${detail}`);
      this.drops.dropPoints(reason, n, own, detail, true);
    }
  }

  /** Latest values of the fields updated at or after `since`, in the order fields were first seen. */
  metrics(fields: string[], since: number): Metric[] {
    const wanted = new Set(fields);
    const out: Metric[] = [];
    for (const [metric, { value, t }] of this.cache)
      if (wanted.has(metric) && t >= since) out.push({ metric, value, timestamp: new Date(t).toISOString() });
    return out;
  }

  onPoints(listener: PointsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stop(): void {
    if (this.scheduled) {
      clearTimeout(this.scheduled as NodeJS.Timeout);
      clearImmediate(this.scheduled as NodeJS.Immediate);
    }
    this.scheduled = null;
    this.drain();
  }

  status(): Record<string, unknown> {
    return {
      ...this.counts,
      keys: this.keys.size,
      fields: this.cache.size,
      publishers: this.publishers.size,
      queuedMessages: this.queue.length - this.queueHead,
      queuedBytes: this.queuedBytes,
      warningsSuppressed: this.warnings.suppressed,
      limits: { ...this.lim },
    };
  }
}
