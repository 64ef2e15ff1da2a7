// Datastore change events (spec §2.5, §6): pure translation of one committed call into the
// messages to publish, and parsing of events that arrive from the bus. An event stays within
// DATASTORE_EVENT_BYTES, what every reader takes: a call whose documents add up to more (a backup
// load of a large namespace, an mset of numbers stored longer than sent) makes several events
// per top-level namespace rather than one that the broker or the readers refuse.
import { byKey, keyOf, topLevelOf, type Doc } from './documents.js';
import { isDoc, isPlainObject } from './datastore-validate.js';
import { DATASTORE_EVENT_BYTES } from '../shared/limits.js';

/** What one committed call did: documents written, or keys deleted. */
export type DocChange = { changed: Doc[] } | { deleted: string[] };

export interface BusMessage {
  topic: string;
  payload: DocChange;
}

export function datastoreTopic(topicRoot: string, topLevel: string): string {
  return `${topicRoot}/datastore/${topLevel}`;
}

function groupByTopLevel<T>(items: T[], keyFn: (item: T) => string): Map<string, T[]> {
  const sorted = items.map((item) => [keyFn(item), item] as const).sort((a, b) => byKey(a[0], b[0]));
  const groups = new Map<string, T[]>();
  for (const [key, item] of sorted) {
    const top = topLevelOf(key);
    const group = groups.get(top);
    if (group) group.push(item);
    else groups.set(top, [item]);
  }
  return groups;
}

/** `{"changed":[]}` and `{"deleted":[]}`: the bytes of an event besides its items. */
const EVENT_FRAME_BYTES = 14;

/**
 * `items` in runs (in order) whose event stays within `maxBytes`. An item that is larger by itself
 * goes alone (a document is bounded by MAX_DOCUMENT_BYTES when written, so only one from before that rule).
 */
function withinBytes<T>(items: T[], maxBytes: number): T[][] {
  const runs: T[][] = [];
  let run: T[] = [];
  let bytes = EVENT_FRAME_BYTES;
  for (const item of items) {
    const size = Buffer.byteLength(JSON.stringify(item));
    // An item after the first adds its comma.
    if (run.length && bytes + 1 + size > maxBytes) {
      runs.push(run);
      [run, bytes] = [[], EVENT_FRAME_BYTES];
    }
    bytes += (run.length ? 1 : 0) + size;
    run.push(item);
  }
  if (run.length) runs.push(run);
  return runs;
}

/**
 * The events of one call: one per top-level namespace, items sorted by full key, one shape
 * only, and none at all when the call changed nothing. A namespace's items that would make an
 * event over `maxBytes` (what the readers of the bus take) go out as several events.
 */
export function changeEvents(topicRoot: string, change: DocChange, maxBytes = DATASTORE_EVENT_BYTES): BusMessage[] {
  if ('changed' in change) {
    const groups = groupByTopLevel(change.changed, (d) => keyOf(d.namespace, d.id));
    return [...groups].flatMap(([top, docs]) =>
      withinBytes(docs, maxBytes).map((changed) => ({ topic: datastoreTopic(topicRoot, top), payload: { changed } })),
    );
  }
  const groups = groupByTopLevel(change.deleted, (k) => k);
  return [...groups].flatMap(([top, keys]) =>
    withinBytes(keys, maxBytes).map((deleted) => ({ topic: datastoreTopic(topicRoot, top), payload: { deleted } })),
  );
}

/**
 * An event received from the bus, as `{changed, deleted}` (either may be empty). Items that
 * are not documents or keys are dropped; a payload that is not an event object gives null.
 */
export function parseDatastoreEvent(raw: unknown): { changed: Doc[]; deleted: string[] } | null {
  let value = raw;
  if (raw instanceof Uint8Array) value = Buffer.from(raw).toString('utf8');
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  if (!isPlainObject(value)) return null;
  const changed = Array.isArray(value.changed) ? value.changed.filter(isDoc) : [];
  const deleted = Array.isArray(value.deleted) ? value.deleted.filter((k): k is string => typeof k === 'string') : [];
  if (!Array.isArray(value.changed) && !Array.isArray(value.deleted)) return null;
  return { changed, deleted };
}
