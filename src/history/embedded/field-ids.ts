// The embedded store's field ids in memory: id by name (and by key, then field), name by id,
// each field's last-seen time, and which names and times the names file (field-names.ts) still lacks.
// A field not seen for longer than any record is kept is forgotten (blocks come and go, names
// must not pile up). Ids are never given twice: records on disk hold ids, not names, so a new
// field that took a forgotten (or damaged) one could show another field's history.
import type { FieldEntry } from './field-names.js';

const HOUR = 3_600_000;

export class FieldIds {
  private readonly ids = new Map<string, number>();
  /** The same ids by key, then by field within the key: a write builds no name per point. */
  private readonly idsByKey = new Map<string, Map<string, number>>();
  private readonly names = new Map<number, string>();
  private readonly unsavedNames = new Set<number>();
  private readonly lastSeen = new Map<number, number>();
  private readonly storedLast = new Map<number, number>();
  /** The lowest id a new field may take: above every id given, and above those damaged lines of the names file may have held. */
  private firstNew = 1;

  get size(): number {
    return this.ids.size;
  }

  /** Keys with a field held. */
  get keys(): number {
    return this.idsByKey.size;
  }

  /** Id by full name (`key/field`), as queries look fields up. */
  get byName(): ReadonlyMap<string, number> {
    return this.ids;
  }

  /**
   * The id of `field` within `key`, given the key's own map (keyFields()), so a write looks its key
   * up once; `created` is told of an id that is new to the key. With `maxNames`, undefined for a
   * new field when that many are held.
   */
  idInKey(byField: Map<string, number>, key: string, field: string, created?: (id: number) => void): number;
  idInKey(
    byField: Map<string, number>,
    key: string,
    field: string,
    created: ((id: number) => void) | undefined,
    maxNames: number,
  ): number | undefined;
  idInKey(
    byField: Map<string, number>,
    key: string,
    field: string,
    created?: (id: number) => void,
    maxNames = Number.POSITIVE_INFINITY,
  ): number | undefined {
    let id = byField.get(field);
    if (id === undefined) {
      const name = `${key}/${field}`;
      if (this.ids.size >= maxNames && !this.ids.has(name)) return undefined;
      if (!byField.size) this.idsByKey.set(key, byField);
      byField.set(field, (id = this.idFor(name)));
      created?.(id);
    }
    return id;
  }

  /** The ids of one key's fields so far (filled by idInKey(), which holds the map once it gives the key a field). */
  keyFields(key: string): Map<string, number> {
    return this.idsByKey.get(key) ?? new Map();
  }

  lastSeenOf(id: number): number | undefined {
    return this.lastSeen.get(id);
  }

  /** The field was written (or replayed) with time `t`. */
  seen(id: number, t: number): void {
    this.lastSeen.set(id, t);
  }

  /**
   * The entries of the names file, read on open; `next`: the lowest id a new field may take, as
   * the file tells it (readNames()), above the ids its damaged lines may have held: those may
   * name fields whose records are stored, and a new field must never show another's history.
   */
  load(entries: FieldEntry[], next = 1): void {
    let highest = 0;
    for (const e of entries) {
      if (!this.ids.has(e.name)) {
        this.ids.set(e.name, e.id);
        this.names.set(e.id, e.name);
      }
      this.storedLast.set(e.id, e.last);
      highest = Math.max(highest, e.id);
    }
    this.firstNew = Math.max(this.firstNew, highest + 1, next);
  }

  idFor(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.firstNew++;
      this.ids.set(name, id);
      this.names.set(id, name);
      this.unsavedNames.add(id);
    }
    return id;
  }

  /** What the names file lacks: new fields, and last-seen times an hour past the stored one. */
  toSave(now: number): FieldEntry[] {
    const names: FieldEntry[] = [];
    for (const id of this.unsavedNames)
      names.push({ id, name: this.names.get(id)!, last: this.lastSeen.get(id) ?? now });
    for (const [id, t] of this.lastSeen) {
      // An id read back from records whose name line was damaged has no name to save.
      const name = this.names.get(id);
      if (name !== undefined && t - (this.storedLast.get(id) ?? 0) > HOUR && !this.unsavedNames.has(id))
        names.push({ id, name, last: t });
    }
    return names;
  }

  /** The entries of toSave() are in the names file now. */
  saved(names: FieldEntry[]): void {
    for (const e of names) this.storedLast.set(e.id, e.last);
    this.unsavedNames.clear();
  }

  /** Names of the fields seen at or after `since`, sorted. */
  seenSince(since: number): string[] {
    const out: string[] = [];
    for (const [name, id] of this.ids)
      if (Math.max(this.lastSeen.get(id) ?? 0, this.storedLast.get(id) ?? 0) >= since) out.push(name);
    return out.sort();
  }

  /** The lowest id a new field may take: the names file states it when rewritten, so a restart gives no id twice. */
  get nextId(): number {
    return this.firstNew;
  }

  /** Ids of the fields last seen before `before`. */
  staleIds(before: number): Set<number> {
    const stale = new Set<number>();
    for (const id of this.names.keys())
      if (Math.max(this.lastSeen.get(id) ?? 0, this.storedLast.get(id) ?? 0) < before) stale.add(id);
    return stale;
  }

  /** The entry of every field but those of `without`, with its newest last-seen time. */
  entries(without: ReadonlySet<number> = new Set()): FieldEntry[] {
    const out: FieldEntry[] = [];
    for (const [id, name] of this.names)
      if (!without.has(id))
        out.push({ id, name, last: Math.max(this.lastSeen.get(id) ?? 0, this.storedLast.get(id) ?? 0) });
    return out;
  }

  /** The names file was rewritten with `written` and without the fields of `gone`: they are forgotten. */
  forget(gone: ReadonlySet<number>, written: FieldEntry[]): void {
    for (const [key, byField] of this.idsByKey) {
      for (const [field, id] of byField) if (gone.has(id)) byField.delete(field);
      if (!byField.size) this.idsByKey.delete(key);
    }
    for (const id of gone) {
      this.ids.delete(this.names.get(id)!);
      this.names.delete(id);
      this.lastSeen.delete(id);
      this.storedLast.delete(id);
    }
    this.storedLast.clear();
    this.saved(written);
  }
}
