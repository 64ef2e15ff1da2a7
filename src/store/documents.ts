// Datastore documents in SQLite: {namespace, id, ...fields}, stored as JSON text. Emits
// `changed` and `deleted` after each committed call, so the controller's own settings
// (the units document) take effect live.
import { EventEmitter } from 'node:events';
import type { Db } from './db.js';

export type Doc = { namespace: string; id: string } & Record<string, unknown>;

type Events = { changed: [Doc[]]; deleted: [string[]] };

export function keyOf(namespace: string, id: string): string {
  return namespace === '' ? id : `${namespace}:${id}`;
}

export class DocumentStore extends EventEmitter<Events> {
  private readonly getStmt;
  private readonly putStmt;
  private readonly delStmt;

  constructor(readonly db: Db) {
    super();
    this.getStmt = db.prepare('SELECT value FROM documents WHERE namespace = ? AND id = ?').pluck();
    this.putStmt = db.prepare('INSERT INTO documents (namespace, id, value) VALUES (?, ?, ?) ON CONFLICT(namespace, id) DO UPDATE SET value = excluded.value');
    this.delStmt = db.prepare('DELETE FROM documents WHERE namespace = ? AND id = ?');
  }

  get(namespace: string, id: string): Doc | null {
    const text = this.getStmt.get(namespace, id) as string | undefined;
    return text === undefined ? null : (JSON.parse(text) as Doc);
  }

  /** Store documents atomically; emits `changed` with the ones whose content changed. */
  setMany(docs: Doc[]): Doc[] {
    const changed = this.db.transaction(() => {
      const out: Doc[] = [];
      for (const doc of docs) {
        const text = JSON.stringify(doc);
        if (this.getStmt.get(doc.namespace, doc.id) === text) continue;
        this.putStmt.run(doc.namespace, doc.id, text);
        out.push(doc);
      }
      return out;
    })();
    if (changed.length) this.emit('changed', changed);
    return changed;
  }

  /** Delete documents atomically; emits `deleted` with the keys that existed. */
  deleteMany(keys: { namespace: string; id: string }[]): string[] {
    const deleted = this.db.transaction(() => keys.filter((k) => this.delStmt.run(k.namespace, k.id).changes > 0).map((k) => keyOf(k.namespace, k.id)))();
    if (deleted.length) this.emit('deleted', deleted);
    return deleted;
  }

  /** Every document whose namespace is `namespace` or nested below it. */
  inNamespace(namespace: string): Doc[] {
    const rows = this.db
      .prepare("SELECT value FROM documents WHERE namespace = ? OR substr(namespace, 1, length(?) + 1) = ? || ':' ORDER BY namespace, id")
      .pluck()
      .all(namespace, namespace, namespace) as string[];
    return rows.map((t) => JSON.parse(t) as Doc);
  }

  /** Replace every document of a namespace tree in one transaction (backup load). */
  replaceNamespace(namespace: string, docs: Doc[]): void {
    const before = this.inNamespace(namespace);
    this.db.transaction(() => {
      for (const d of before) this.delStmt.run(d.namespace, d.id);
      for (const d of docs) this.putStmt.run(d.namespace, d.id, JSON.stringify(d));
    })();
    const kept = new Set(docs.map((d) => keyOf(d.namespace, d.id)));
    const gone = before.map((d) => keyOf(d.namespace, d.id)).filter((k) => !kept.has(k));
    if (gone.length) this.emit('deleted', gone);
    if (docs.length) this.emit('changed', docs);
  }
}
