// Datastore change events (spec §2.5, §6): pure translation of one committed call into the
// messages to publish, and parsing of events that arrive from the bus.
import { byKey, keyOf, topLevelOf, type Doc } from './documents.js';
import { isDoc, isPlainObject } from './datastore-validate.js';

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

/**
 * The events of one call: one per top-level namespace, items sorted by full key, one shape
 * only, and none at all when the call changed nothing.
 */
export function changeEvents(topicRoot: string, change: DocChange): BusMessage[] {
  if ('changed' in change) {
    const groups = groupByTopLevel(change.changed, (d) => keyOf(d.namespace, d.id));
    return [...groups].map(([top, changed]) => ({ topic: datastoreTopic(topicRoot, top), payload: { changed } }));
  }
  const groups = groupByTopLevel(change.deleted, (k) => k);
  return [...groups].map(([top, deleted]) => ({ topic: datastoreTopic(topicRoot, top), payload: { deleted } }));
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
