// Datastore documents in SQLite: {namespace, id, ...fields}, stored as JSON text. Every call is
// one transaction (durable on return: WAL + synchronous=FULL). Emits `changed` and `deleted`
// after each committed call that changed something, so the controller's own settings (the
// units document) take effect live and change events can be published.
import { EventEmitter } from 'node:events';
import { DATASTORE_BYTES } from '../shared/limits.js';
import type { Db } from './db.js';
import { ForeignDocuments } from './foreign-documents.js';
import { globMatcher } from './datastore-glob.js';
import { documentIssues, type Doc, type DocumentShapes, type SetQuery } from './datastore-validate.js';

export type { Doc };

type Events = { changed: [Doc[]]; deleted: [string[]] };

interface Row {
  namespace: string;
  id: string;
  value: string;
}

export function keyOf(namespace: string, id: string): string {
  return namespace === '' ? id : `${namespace}:${id}`;
}

/** The first `:` section of a full key (for a key without `:`, the whole key). */
export function topLevelOf(key: string): string {
  const i = key.indexOf(':');
  return i < 0 ? key : key.slice(0, i);
}

/** Bytes of stored text (UTF-8), what DATASTORE_BYTES counts. */
const bytesOf = (text: string) => Buffer.byteLength(text);

/** A write that would take the datastore past its total size (DATASTORE_BYTES); the API answers 507. */
export class DatastoreFullError extends Error {
  override name = 'DatastoreFullError';
  constructor(used: number, after: number, limit: number) {
    super(
      `the datastore is full: its documents take ${used} bytes as stored (JSON) of the ${limit} it may hold, and this write would make it ${after}; delete documents (delete, mdelete) to make room`,
    );
  }
}

/** Bytes the stored documents take (what DATASTORE_BYTES counts), read from the table. */
function storedBytes(db: Db): number {
  return db.prepare('SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) FROM documents').pluck().get() as number;
}

/** The `n` namespaces whose documents take the most bytes as stored, largest first. */
function largestNamespaces(db: Db, n: number): Array<{ namespace: string; bytes: number }> {
  return db
    .prepare(
      'SELECT namespace, sum(length(CAST(value AS BLOB))) AS bytes FROM documents GROUP BY namespace ORDER BY bytes DESC LIMIT ?',
    )
    .all(n) as Array<{ namespace: string; bytes: number }>;
}

/**
 * What is said of a store already past DATASTORE_BYTES (filled by a release before the bound),
 * naming its three largest namespaces so it is known what to delete; null within it. One text for
 * the start's log (`bytes`: what the open store counted) and `edgeblocks check` (read from `db`),
 * since the first a user meets of it otherwise is a 507 on a save.
 */
export function pastBoundWarning(db: Db, bytes = storedBytes(db)): string | null {
  if (bytes <= DATASTORE_BYTES) return null;
  const largest = largestNamespaces(db, 3).map((l) => `'${l.namespace}' ${l.bytes} bytes`);
  return `the datastore's documents take ${bytes} bytes, past the ${DATASTORE_BYTES} it may hold (stored before that bound): a write that makes it larger is refused (507) until documents are deleted; the largest namespaces: ${largest.join(', ')}`;
}

export const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Is `namespace` equal to `root` or nested below it? */
function inTree(namespace: string, root: string): boolean {
  return namespace === root || namespace.startsWith(`${root}:`);
}

export class DocumentStore extends EventEmitter<Events> {
  private readonly getStmt;
  private readonly putStmt;
  private readonly delStmt;
  private readonly allStmt;
  private readonly treeStmt;
  private readonly sizeStmt;
  /** Bytes of every stored row's text, kept up to date by each committed write. */
  private used: number;
  /** The bound of `used` that writes must keep to (or not grow past, if a store from before it is over). */
  readonly maxBytes = DATASTORE_BYTES;

  /** Stored rows whose text is not a document (bytes gone bad on the card), by key: left out of reads. */
  private readonly rottenRows = new Map<string, string>();

  /**
   * `shapes`: the schemas of documents the service reads itself; writes that do not fit are
   * refused. `onRotten` hears once of each stored row that is not a document; `onListenerError`
   * of each listener that threw while it was told of a change.
   */
  constructor(
    readonly db: Db,
    readonly shapes?: DocumentShapes,
    private readonly onRotten: (key: string, reason: string) => void = () => undefined,
    private readonly onListenerError: (event: string, err: unknown) => void = () => undefined,
  ) {
    super();
    this.getStmt = db.prepare('SELECT value FROM documents WHERE namespace = ? AND id = ?').pluck();
    this.putStmt = db.prepare(
      'INSERT INTO documents (namespace, id, value) VALUES (?, ?, ?) ON CONFLICT(namespace, id) DO UPDATE SET value = excluded.value',
    );
    this.delStmt = db.prepare('DELETE FROM documents WHERE namespace = ? AND id = ?');
    this.allStmt = db.prepare('SELECT namespace, id, value FROM documents');
    this.treeStmt = db.prepare(
      "SELECT namespace, id, value FROM documents WHERE namespace = @ns OR substr(namespace, 1, length(@ns) + 1) = @ns || ':'",
    );
    this.sizeStmt = db
      .prepare('SELECT length(CAST(value AS BLOB)) FROM documents WHERE namespace = ? AND id = ?')
      .pluck();
    this.used = storedBytes(db);
  }

  /** Bytes the documents take as stored, of `maxBytes`. */
  get bytes(): number {
    return this.used;
  }

  /** What the start says of a store past its bound (pastBoundWarning); null within it. */
  pastBound(): string | null {
    return pastBoundWarning(this.db, this.used);
  }

  /** The refusal of a write that grows the store by `grow` bytes past `maxBytes`; null if it may. */
  private fullFor(grow: number): DatastoreFullError | null {
    const after = this.used + grow;
    return grow > 0 && after > this.maxBytes ? new DatastoreFullError(this.used, after, this.maxBytes) : null;
  }

  /**
   * Tell every listener of a committed change, each on its own: one that throws is reported
   * (onListenerError) and the others still hear of it, as does the caller that made the change
   * (a backup load goes on to act on the hardware).
   */
  override emit<K extends keyof Events>(event: K, ...args: Events[K]): boolean {
    const listeners = this.rawListeners(event) as Array<(...a: Events[K]) => void>;
    for (const listener of listeners) {
      try {
        listener.apply(this, args);
      } catch (e) {
        this.onListenerError(event, e);
      }
    }
    return listeners.length > 0;
  }

  /** Liveness of the database. */
  ping(): void {
    this.db.prepare('SELECT 1').get();
  }

  get(namespace: string, id: string): Doc | null {
    const text = this.getStmt.get(namespace, id) as string | undefined;
    return text === undefined ? null : this.parse({ namespace, id, value: text });
  }

  /** Keys of the rotten rows (see `rotten`) in `namespace` or nested below it. */
  rottenIn(namespace: string): string[] {
    return [...this.rottenRows.keys()].filter((key) => key.startsWith(`${namespace}:`));
  }

  /** The stored rows that are not documents, left out of every read until they are written again. */
  rotten(): { key: string; reason: string }[] {
    return [...this.rottenRows].map(([key, reason]) => ({ key, reason }));
  }

  private parse(row: Row): Doc | null {
    const key = keyOf(row.namespace, row.id);
    let value: unknown;
    try {
      value = JSON.parse(row.value);
    } catch (e) {
      value = (e as Error).message;
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Doc;
    const reason = typeof value === 'string' ? `not JSON: ${value}` : 'not an object';
    if (!this.rottenRows.has(key)) {
      this.rottenRows.set(key, reason);
      this.onRotten(key, reason);
    }
    return null;
  }

  private parseAll(rows: Row[]): Doc[] {
    return rows.flatMap((r) => this.parse(r) ?? []);
  }

  /**
   * Store documents atomically (a later document with the same key wins); emits and returns
   * the documents whose stored content actually changed. Throws DatastoreFullError, storing
   * nothing, if they would take the store past `maxBytes`, unless `unbounded`: a write the service
   * makes to follow a change it already made (the alert rules after a rename), which grows the
   * store by a name at most and must not be lost.
   */
  setMany(docs: Doc[], { unbounded = false } = {}): Doc[] {
    const last = new Map(docs.map((d) => [keyOf(d.namespace, d.id), d]));
    const { changed, grow } = this.db.transaction(() => {
      const writes: { doc: Doc; text: string }[] = [];
      let grow = 0;
      for (const doc of last.values()) {
        const text = JSON.stringify(doc);
        const before = this.getStmt.get(doc.namespace, doc.id) as string | undefined;
        if (before === text) continue;
        grow += bytesOf(text) - (before === undefined ? 0 : bytesOf(before));
        writes.push({ doc, text });
      }
      const full = unbounded ? null : this.fullFor(grow);
      if (full) throw full;
      for (const { doc, text } of writes) {
        this.putStmt.run(doc.namespace, doc.id, text);
        this.rottenRows.delete(keyOf(doc.namespace, doc.id));
      }
      return { changed: writes.map((w) => w.doc), grow };
    })();
    this.used += grow;
    if (changed.length) this.emit('changed', changed);
    return changed;
  }

  /** Delete documents atomically; emits and returns the keys that existed. */
  deleteMany(keys: { namespace: string; id: string }[]): string[] {
    const { deleted, freed } = this.db.transaction(() => {
      let freed = 0;
      const deleted = keys
        .filter((k) => {
          const size = this.sizeStmt.get(k.namespace, k.id) as number | undefined;
          if (size === undefined || this.delStmt.run(k.namespace, k.id).changes === 0) return false;
          freed += size;
          return true;
        })
        .map((k) => keyOf(k.namespace, k.id));
      return { deleted, freed };
    })();
    this.used -= freed;
    for (const key of deleted) this.rottenRows.delete(key);
    if (deleted.length) this.emit('deleted', deleted);
    return deleted;
  }

  /**
   * Documents named by `ids` (in their order, missing ones left out), then those whose key
   * after `namespace:` matches `filter` (in key order); each document once. With neither ids
   * nor filter: the whole namespace tree when `emptyMeansAll`, else nothing.
   */
  find(query: SetQuery, emptyMeansAll = true): Doc[] {
    return this.parseAll(this.findRows(query, emptyMeansAll));
  }

  /** Delete what `find(query, false)` names, atomically; emits and returns the deleted keys (sorted). */
  deleteFound(query: SetQuery): string[] {
    const rows = this.db.transaction(() => {
      const rows = this.findRows(query, false);
      for (const r of rows) this.delStmt.run(r.namespace, r.id);
      return rows;
    })();
    this.used -= rows.reduce((sum, r) => sum + bytesOf(r.value), 0);
    const deleted = rows.map((r) => keyOf(r.namespace, r.id)).sort(byKey);
    for (const key of deleted) this.rottenRows.delete(key);
    if (deleted.length) this.emit('deleted', deleted);
    return deleted;
  }

  private findRows(query: SetQuery, emptyMeansAll: boolean): Row[] {
    const { namespace, ids } = query;
    const found = new Map<string, Row>();
    for (const id of ids ?? []) {
      const value = this.getStmt.get(namespace, id) as string | undefined;
      if (value !== undefined) found.set(keyOf(namespace, id), { namespace, id, value });
    }
    const filter = query.filter ?? (ids === undefined && emptyMeansAll ? '*' : undefined);
    if (filter !== undefined) {
      const matches = globMatcher(filter);
      const prefix = namespace === '' ? 0 : namespace.length + 1;
      const rows = (namespace === '' ? this.allStmt.all() : this.treeStmt.all({ ns: namespace })) as Row[];
      const keyed = rows.map((r) => [keyOf(r.namespace, r.id), r] as const).sort((a, b) => byKey(a[0], b[0]));
      for (const [key, row] of keyed) if (!found.has(key) && matches(key.slice(prefix))) found.set(key, row);
    }
    return [...found.values()];
  }

  /** Every document whose namespace is `namespace` or nested below it. */
  inNamespace(namespace: string): Doc[] {
    const rows = this.treeStmt.all({ ns: namespace }) as Row[];
    return this.parseAll(rows.sort((a, b) => byKey(a.namespace, b.namespace) || byKey(a.id, b.id)));
  }

  /**
   * Replace every document of a namespace tree in one transaction (backup load). Items that
   * are not valid documents of the tree are left out; returns why, one line each. With
   * `announce`, the change events are pushed there to be run once an enclosing transaction has
   * committed, instead of emitted now.
   */
  replaceNamespace(namespace: string, items: unknown[], announce?: Array<() => void>): string[] {
    const rejected: string[] = [];
    const docs = new Map<string, Doc>();
    const foreign = new ForeignDocuments();
    items.forEach((item, i) => {
      const issues = documentIssues(item, `store.${i}`, this.shapes);
      if (issues.length) return rejected.push(issues.map((x) => `${x.path}: ${x.message}`).join('; '));
      const doc = item as Doc;
      if (!inTree(doc.namespace, namespace)) return foreign.add(doc.namespace, doc.id);
      docs.set(keyOf(doc.namespace, doc.id), doc);
    });
    rejected.push(...foreign.messages(namespace, items.length > 0 && docs.size === 0));
    // A list of which nothing could be taken is not a namespace without documents (that is an
    // empty list): replacing with it would delete them all for a shape this version cannot read.
    if (items.length > 0 && docs.size === 0) {
      // Documents of another service only: their message says the controller's were kept.
      if (rejected.length > foreign.size)
        rejected.push(
          `no document of the list could be taken, so the documents of '${namespace}' were kept as they were`,
        );
      return rejected;
    }
    const { changed, gone, grow, full } = this.db.transaction(() => {
      const before = new Map((this.treeStmt.all({ ns: namespace }) as Row[]).map((r) => [keyOf(r.namespace, r.id), r]));
      let grow = 0;
      for (const r of before.values()) grow -= bytesOf(r.value);
      for (const d of docs.values()) grow += bytesOf(JSON.stringify(d));
      const full = this.fullFor(grow);
      if (full) return { changed: [], gone: [], grow: 0, full };
      const gone: string[] = [];
      for (const [key, r] of before) {
        if (docs.has(key)) continue;
        this.delStmt.run(r.namespace, r.id);
        gone.push(key);
      }
      const changed: Doc[] = [];
      for (const [key, d] of docs) {
        const text = JSON.stringify(d);
        if (before.get(key)?.value === text) continue;
        this.putStmt.run(d.namespace, d.id, text);
        changed.push(d);
      }
      return { changed, gone, grow, full: null };
    })();
    if (full) {
      rejected.push(`the documents of '${namespace}' were kept as they were: ${full.message}`);
      return rejected;
    }
    for (const key of [...gone, ...docs.keys()]) this.rottenRows.delete(key);
    // Run inside a larger transaction (a backup load), the changes are told once it commits:
    // `announce` collects the telling for the caller.
    const tell = () => {
      this.used += grow;
      if (gone.length) this.emit('deleted', gone.sort(byKey));
      if (changed.length) this.emit('changed', changed);
    };
    if (announce) announce.push(tell);
    else tell();
    return rejected;
  }
}
