// Thin adapter between the DocumentStore and a publish/subscribe facility (app.mqtt): local
// changes go out as change events (not retained); events about the controller's own namespace
// that arrive from another datastore are handed to `onRemote`, never re-published.
import { createHash } from 'node:crypto';
import type { DocumentStore, Doc } from './documents.js';
import { changeEvents, datastoreTopic, parseDatastoreEvent, type DocChange } from './datastore-events.js';

export type Publish = (topic: string, payload: DocChange, opts: { retain: boolean }) => unknown;
export type Subscribe = (topic: string, handler: (topic: string, payload: unknown) => void) => unknown;

/** Publish every committed change of `documents`; returns a function that stops publishing. */
export function publishDocumentChanges(
  documents: DocumentStore,
  topicRoot: string,
  publish: Publish,
  onError: (err: unknown) => void = () => undefined,
): () => void {
  const send = (change: DocChange) => {
    for (const m of changeEvents(topicRoot, change)) {
      // Fire and forget: the caller's reply never waits for (or fails because of) the bus.
      try {
        const result = publish(m.topic, m.payload, { retain: false });
        if (result instanceof Promise) result.catch(onError);
      } catch (e) {
        onError(e);
      }
    }
  };
  const onChanged = (changed: Doc[]) => send({ changed });
  const onDeleted = (deleted: string[]) => send({ deleted });
  documents.on('changed', onChanged);
  documents.on('deleted', onDeleted);
  return () => {
    documents.off('changed', onChanged);
    documents.off('deleted', onDeleted);
  };
}

/** A digest of a payload's JSON: what the echo filter keeps of it (an event may be 1 MiB). */
const digestOf = (payload: unknown) => createHash('sha256').update(JSON.stringify(payload)).digest('base64');

/**
 * Recognises our own events coming back from the broker (we subscribe to a topic we publish
 * on), so a stale echo cannot undo a newer local change. Keeps a digest of each, so its `max`
 * entries take a few kB however large the events were.
 */
export class EchoFilter {
  private readonly sent: { digest: string; at: number }[] = [];

  constructor(
    private readonly ttlMs = 30_000,
    private readonly max = 200,
    private readonly now: () => number = () => performance.now(),
  ) {}

  remember(payload: unknown): void {
    this.sent.push({ digest: digestOf(payload), at: this.now() });
    if (this.sent.length > this.max) this.sent.shift();
  }

  /** What the remembered payloads take. */
  heldBytes(): number {
    return this.sent.reduce((n, s) => n + s.digest.length, 0);
  }

  /** True (once) if `payload` is one we published within the ttl. */
  take(payload: unknown): boolean {
    const cutoff = this.now() - this.ttlMs;
    while (this.sent.length && this.sent[0]!.at < cutoff) this.sent.shift();
    const digest = digestOf(payload);
    const i = this.sent.findIndex((s) => s.digest === digest);
    if (i < 0) return false;
    this.sent.splice(i, 1);
    return true;
  }
}

export interface DatastoreBridgeOptions {
  documents: DocumentStore;
  topicRoot: string;
  /** The controller's own top-level namespace (its service id). */
  namespace: string;
  publish: Publish;
  subscribe?: Subscribe;
  /** Documents of `namespace` changed or deleted by another datastore. */
  onRemote: (change: { changed: Doc[]; deleted: string[] }) => void;
  onError?: (err: unknown) => void;
}

/** Publish local changes and follow remote events of the controller's namespace. */
export function bridgeDatastore(opts: DatastoreBridgeOptions): () => void {
  const echoes = new EchoFilter();
  const ownTopic = datastoreTopic(opts.topicRoot, opts.namespace);
  const stop = publishDocumentChanges(
    opts.documents,
    opts.topicRoot,
    (topic, payload, flags) => {
      const result = opts.publish(topic, payload, flags);
      // A message the bus dropped (false: disconnected) will never come back.
      if (topic === ownTopic && result !== false) echoes.remember(payload);
      return result;
    },
    opts.onError,
  );
  let active = true;
  const unsubscribe = opts.subscribe?.(ownTopic, (_topic, raw) => {
    if (!active) return;
    const event = parseDatastoreEvent(raw);
    if (!event) return;
    const shape =
      event.deleted.length === 0
        ? { changed: event.changed }
        : event.changed.length === 0
          ? { deleted: event.deleted }
          : null;
    if (shape && echoes.take(shape)) return;
    const mine = (ns: string) => ns === opts.namespace || ns.startsWith(`${opts.namespace}:`);
    const changed = event.changed.filter((d) => mine(d.namespace));
    const deleted = event.deleted.filter((k) => k.startsWith(`${opts.namespace}:`));
    if (changed.length || deleted.length) opts.onRemote({ changed, deleted });
  });
  return () => {
    active = false;
    stop();
    if (typeof unsubscribe === 'function') unsubscribe();
  };
}
