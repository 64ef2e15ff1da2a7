// The block container and its scheduler, with the block API operations on top. Every
// operation is synchronous (better-sqlite3 is too), so concurrent requests cannot interleave
// inside one; discovery and backup load, which await hardware, share one lock.
import { EventEmitter } from 'node:events';
import { complete, decodeData, isPlainObject, merge, withReadonly, writable, type DecodeContext, type ValidationIssue } from '../codec/decode.js';
import { encodeData, type ReadMode } from '../codec/encode.js';
import { defaultValue, type Field } from '../codec/fields.js';
import { DEFAULT_UNITS, type UnitPrefs } from '../codec/units.js';
import { silentLogger, type Logger } from '../log.js';
import { claim, claimChains, channels, relations, release, releaseStale, type Claim, type Relation } from './claims.js';
import type { Clock } from './clock.js';
import { BlockError, conflict, invalid, notFound } from './errors.js';
import { EncodeCache } from './encode-cache.js';
import { noHardware, type Hardware } from './hardware.js';
import { dependencyOrder } from './order.js';
import type { BlockPersistence, BlockRecord, RawRecord } from './persistence.js';
import { implementsIface, type AnyBlock, type BlockTypeDef, type Data, type IoArray, type UpdateContext } from './types.js';

export const FIRST_USER_NID = 100;
const IDLE_INTERVAL_MS = 1000;

export interface BlockJson {
  id: string;
  nid: number;
  type: string;
  serviceId: string;
  data: Record<string, unknown>;
  meta?: Record<string, unknown>;
}

export interface Ident {
  id: string;
  nid: number;
  type: string;
  serviceId: string;
}

export interface ChangeEvent {
  changed: AnyBlock[];
  deleted: string[];
  /** Where the change came from: REST and MQTT callers, discovery, backup load. */
  origin: string;
}

export interface DiscoveredBlock {
  type: string;
  id: string;
  /** Stored-mode data in controller units, as a record would hold it. */
  data: Data;
}

/** Finds hardware that has no block yet. Given every current block, returns the blocks to create. */
export type Discoverer = (existing: AnyBlock[]) => Promise<DiscoveredBlock[]>;

export interface Backup {
  timestamp: string;
  version: string;
  blocks: BlockJson[];
  store: Record<string, unknown>[];
}

/** The controller's own datastore documents, saved in and restored from backups. */
export interface BackupStore {
  save(): Record<string, unknown>[];
  /** Replace the documents; returns one message per document that was left out. */
  load(docs: Record<string, unknown>[]): string[] | void;
}

export interface RuntimeOptions {
  serviceId: string;
  version: string;
  types: BlockTypeDef<any, any>[];
  clock: Clock;
  persistence: BlockPersistence;
  units?: () => UnitPrefs;
  hardware?: Hardware;
  log?: Logger;
  discoverers?: Discoverer[];
  backupStore?: BackupStore;
}

type Events = { change: [ChangeEvent]; tick: [number] };

export class BlockRuntime extends EventEmitter<Events> {
  readonly serviceId: string;
  readonly version: string;
  readonly clock: Clock;
  readonly log: Logger;
  readonly hardware: Hardware;
  readonly types = new Map<string, BlockTypeDef<any, any>>();
  readonly discoverers: Discoverer[];
  backupStore?: BackupStore;
  private readonly persistence: BlockPersistence;
  private readonly unitsOf: () => UnitPrefs;
  private readonly byNid = new Map<number, AnyBlock>();
  private readonly byId = new Map<string, AnyBlock>();
  private readonly persisted = new Map<number, string>();
  private ordered: AnyBlock[] | null = null;
  private exclusive: Promise<unknown> = Promise.resolve();
  private ctx: UpdateContext;
  private ticking = false;
  /** Monotonic time of the last completed scheduler tick (the watchdog watches it). */
  lastTickAt = -Infinity;
  tickCount = 0;
  /** Encoded JSON text per block, shared by REST reads and the state emission. */
  readonly encodings: EncodeCache;

  constructor(opts: RuntimeOptions) {
    super();
    this.serviceId = opts.serviceId;
    this.version = opts.version;
    this.clock = opts.clock;
    this.persistence = opts.persistence;
    this.unitsOf = opts.units ?? (() => DEFAULT_UNITS);
    this.hardware = opts.hardware ?? noHardware;
    this.log = opts.log ?? silentLogger;
    this.discoverers = opts.discoverers ?? [];
    this.backupStore = opts.backupStore;
    for (const t of opts.types) this.types.set(t.type, t);
    this.ctx = this.makeContext();
    this.encodings = new EncodeCache(this);
  }

  get units(): UnitPrefs {
    return this.unitsOf();
  }

  blocks(): AnyBlock[] {
    return [...this.byNid.values()].sort((a, b) => a.nid - b.nid);
  }

  find(id: string): AnyBlock | undefined {
    return this.byId.get(id);
  }

  // ---- start-up -------------------------------------------------------------------------

  /** Create the system blocks, then restore every stored block. Bad records are quarantined. */
  load(): void {
    for (const def of this.types.values()) {
      if (def.system) this.insert(def, def.system.nid, def.system.id, complete(def.fields, {}), {});
    }
    for (const raw of this.persistence.loadBlocks()) {
      if (raw.nid >= FIRST_USER_NID) this.persistence.reserveNid(raw.nid);
      try {
        this.restore(raw);
      } catch (e) {
        const reason = e instanceof Error ? e.message : String(e);
        this.log.error({ nid: raw.nid, id: raw.id, type: raw.type, reason }, 'stored block cannot be decoded; kept aside');
        this.persistence.quarantine(raw, reason);
      }
    }
    releaseStale(this.byNid.values(), (id) => this.byId.get(id));
    this.ordered = null;
  }

  private restore(raw: RawRecord): void {
    const def = this.types.get(raw.type);
    if (!def) throw new Error(`unknown block type '${raw.type}'`);
    const data = JSON.parse(raw.data) as unknown;
    const meta = JSON.parse(raw.meta) as unknown;
    if (!isPlainObject(meta)) throw new Error('meta is not an object');
    const { value, issues } = decodeData(def.fields, data, { prefs: DEFAULT_UNITS, checkLink: () => null });
    if (issues.length) throw new Error(issues.map((i) => `${i.path}: ${i.message}`).join('; '));
    const full = complete(def.fields, value);
    if (def.system) {
      const sys = this.byNid.get(def.system.nid);
      if (!sys || raw.nid !== def.system.nid) throw new Error(`system block ${raw.type} stored under nid ${raw.nid}`);
      sys.data = withReadonly(def.fields, sys.data, full) as AnyBlock['data'];
      sys.meta = meta;
    } else {
      if (this.byNid.has(raw.nid) || this.byId.has(raw.id)) throw new Error(`duplicate nid ${raw.nid} or id '${raw.id}'`);
      this.insert(def, raw.nid, raw.id, full, meta);
      this.persistence.reserveNid(raw.nid);
    }
    this.persisted.set(raw.nid, this.recordString(this.byNid.get(raw.nid)!));
  }

  private insert(def: BlockTypeDef<any, any>, nid: number, id: string, writableData: Data, meta: Record<string, unknown>): AnyBlock {
    const block: AnyBlock = {
      nid,
      id,
      def,
      data: withReadonly(def.fields, undefined, writableData) as AnyBlock['data'],
      meta,
      state: undefined,
      nextUpdate: -Infinity,
    };
    block.state = def.init ? def.init(block) : undefined;
    this.byNid.set(nid, block);
    this.byId.set(id, block);
    this.ordered = null;
    return block;
  }

  // ---- block API --------------------------------------------------------------------------

  create(input: unknown, origin = 'api'): BlockJson {
    const body = blockBody(input, true);
    const def = this.typeOf(body.type);
    if (def.system) throw conflict(`'${def.type}' is a system block type and cannot be created`);
    if (body.id === undefined) throw invalid('create needs an id', [{ path: 'id', message: 'required' }]);
    if (this.byId.has(body.id)) throw conflict(`block id '${body.id}' is already in use`);
    if (body.nid !== undefined) {
      if (body.nid < FIRST_USER_NID) throw invalid(`nid ${body.nid} is reserved for system blocks; use ${FIRST_USER_NID} or more`, [{ path: 'nid', message: 'must be >= 100' }]);
      if (this.byNid.has(body.nid)) throw conflict(`nid ${body.nid} is already in use`);
    }
    const given = this.decode(def, body.data, body.type);
    const nid = body.nid ?? this.allocateNid();
    this.persistence.reserveNid(nid);
    const block = this.insert(def, nid, body.id, complete(def.fields, given), body.meta ?? {});
    this.afterWrite(block, { previous: undefined, patch: false, given }, () => this.remove(block, false));
    this.emit('change', { changed: [block], deleted: [], origin });
    return this.toJson(block);
  }

  read(input: unknown, mode: ReadMode = 'default'): BlockJson {
    return this.toJson(this.resolveIdent(input), mode);
  }

  write(input: unknown, origin = 'api'): BlockJson {
    return this.update(input, false, origin);
  }

  patch(input: unknown, origin = 'api'): BlockJson {
    return this.update(input, true, origin);
  }

  private update(input: unknown, isPatch: boolean, origin: string): BlockJson {
    const body = blockBody(input, true);
    const block = this.resolveIdent(body);
    if (body.type !== block.def.type) {
      throw conflict(`block '${block.id}' is a ${block.def.type}; a ${isPatch ? 'patch' : 'write'} cannot change it to '${body.type}'`);
    }
    const def = block.def;
    const given = this.decode(def, body.data, body.type, block);
    const previous = block.data as Data;
    const previousMeta = block.meta;
    const next = isPatch ? merge(def.fields, writable(def.fields, previous), given) : complete(def.fields, given);
    block.data = withReadonly(def.fields, previous, next) as AnyBlock['data'];
    if (body.meta !== undefined) block.meta = isPatch ? { ...block.meta, ...body.meta } : body.meta;
    else if (!isPatch) block.meta = {};
    this.ordered = null;
    this.afterWrite(block, { previous, patch: isPatch, given }, () => {
      block.data = previous as AnyBlock['data'];
      block.meta = previousMeta;
    });
    this.emit('change', { changed: [block], deleted: [], origin });
    return this.toJson(block);
  }

  delete(input: unknown, origin = 'api'): Ident {
    const block = this.resolveIdent(input);
    if (block.def.system) throw conflict(`'${block.id}' is a system block and cannot be deleted`);
    this.remove(block);
    this.afterStructureChange();
    this.emit('change', { changed: [], deleted: [block.id], origin });
    return this.ident(block);
  }

  readAll(mode: ReadMode = 'default'): BlockJson[] {
    return this.blocks().map((b) => this.toJson(b, mode));
  }

  /** `JSON.stringify(read(input, mode))`, from the encoding cache. */
  readText(input: unknown, mode: ReadMode = 'default'): string {
    return this.encodings.text(this.resolveIdent(input), mode);
  }

  /** `JSON.stringify(readAll(mode))`, from the encoding cache. */
  readAllText(mode: ReadMode = 'default'): string {
    return this.encodings.list(mode);
  }

  deleteAll(origin = 'api'): Ident[] {
    const removed = this.blocks().filter((b) => !b.def.system);
    for (const b of removed) this.remove(b);
    this.afterStructureChange();
    if (removed.length) this.emit('change', { changed: [], deleted: removed.map((b) => b.id), origin });
    return removed.map((b) => this.ident(b));
  }

  /** Search every bus and create blocks for devices that have none. Returns only new blocks. */
  discover(origin = 'api'): Promise<BlockJson[]> {
    return this.exclusively(async () => {
      const created: AnyBlock[] = [];
      for (const discoverer of this.discoverers) {
        const found = await discoverer(this.blocks());
        for (const d of found) {
          const def = this.types.get(d.type);
          if (!def || this.byId.has(d.id)) continue;
          const { value, issues } = decodeData(def.fields, d.data, { prefs: DEFAULT_UNITS, checkLink: () => null });
          if (issues.length) {
            this.log.warn({ id: d.id, issues }, 'discovered block rejected');
            continue;
          }
          const block = this.insert(def, this.allocateNid(), d.id, complete(def.fields, value), {});
          this.afterWrite(block, { previous: undefined, patch: false, given: value }, () => this.remove(block, false));
          created.push(block);
        }
      }
      if (created.length) this.emit('change', { changed: created, deleted: [], origin });
      return created.map((b) => this.toJson(b));
    });
  }

  backupSave(): Backup {
    const wall = this.clock.wall() ?? Date.now();
    return {
      timestamp: new Date(wall).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      version: this.version,
      blocks: this.blocks().map((b) => this.toJson(b, 'stored')),
      store: this.backupStore?.save() ?? [],
    };
  }

  /** Replace every block (and the controller's datastore documents) with a backup's. */
  backupLoad(input: unknown, origin = 'backup'): Promise<{ messages: string[] }> {
    if (!isPlainObject(input)) throw new BlockError('bad-request', 'a backup must be a JSON object');
    if (!Array.isArray(input.blocks)) throw invalid('a backup needs a blocks array', [{ path: 'blocks', message: 'required array' }]);
    if (input.store !== undefined && input.store !== null && !Array.isArray(input.store)) {
      throw invalid('store must be an array of documents', [{ path: 'store', message: 'must be an array' }]);
    }
    const items = input.blocks as unknown[];
    const docs = (input.store ?? null) as Record<string, unknown>[] | null;
    return this.exclusively(async () => this.loadBackupBlocks(items, docs, origin));
  }

  private loadBackupBlocks(items: unknown[], docs: Record<string, unknown>[] | null, origin: string): { messages: string[] } {
    const messages: string[] = [];
    const label = (item: unknown, i: number) => {
      const o = isPlainObject(item) ? item : {};
      return `block ${i} (id '${String(o.id ?? '?')}', nid ${String(o.nid ?? '?')}, type '${String(o.type ?? '?')}')`;
    };
    // Every id in the backup is known before any block is decoded, so forward links resolve.
    const pending = new Map<string, BlockTypeDef<any, any>>();
    for (const item of items) {
      if (isPlainObject(item) && typeof item.id === 'string' && typeof item.type === 'string') {
        const def = this.types.get(item.type);
        if (def) pending.set(item.id, def);
      }
    }
    const prefs = this.units;
    const checkLink = (id: string, iface: string): string | null => {
      const def = pending.get(id) ?? this.systemBlockById(id)?.def;
      if (!def) return `block '${id}' does not exist`;
      return implementsIface(def, iface) ? null : `block '${id}' is a ${def.type}, which is not a ${iface}`;
    };

    // Phase 1: decode everything without touching the current blocks.
    interface Prepared {
      def: BlockTypeDef<any, any>;
      nid: number;
      id: string;
      data: Data;
      meta: Record<string, unknown>;
    }
    const prepared: Prepared[] = [];
    const nids = new Set<number>();
    const ids = new Set<string>();
    items.forEach((item, i) => {
      try {
        const body = blockBody(item, true);
        const def = this.typeOf(body.type);
        const { value, issues } = decodeData(def.fields, body.data, { prefs, checkLink });
        if (issues.length) throw invalid(issues.map((x) => `${x.path}: ${x.message}`).join('; '));
        const meta = body.meta ?? {};
        if (def.system) {
          prepared.push({ def, nid: def.system.nid, id: def.system.id, data: complete(def.fields, value), meta });
          return;
        }
        if (body.id === undefined) throw invalid('no id');
        if (body.nid === undefined) throw invalid('no nid');
        if (body.nid < FIRST_USER_NID) throw invalid(`nid ${body.nid} is not a user nid and no system block has it`);
        if (nids.has(body.nid)) throw conflict(`nid ${body.nid} appears twice`);
        if (ids.has(body.id) || this.systemBlockById(body.id)) throw conflict(`id '${body.id}' appears twice`);
        nids.add(body.nid);
        ids.add(body.id);
        prepared.push({ def, nid: body.nid, id: body.id, data: complete(def.fields, value), meta });
      } catch (e) {
        messages.push(`${label(item, i)} failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    });
    if (items.length > 0 && prepared.length === 0) {
      throw invalid(`no block of the backup can be loaded, so nothing was changed: ${messages.join('; ')}`, [{ path: 'blocks', message: 'no loadable block' }]);
    }

    // Phase 2: swap the blocks in memory, then commit them in one transaction (or undo the swap).
    const previous = this.blocks();
    const previousSystem = previous.filter((b) => b.def.system).map((b) => ({ block: b, data: b.data, meta: b.meta }));
    const previousIds = previous.filter((b) => !b.def.system).map((b) => b.id);
    for (const b of previous) if (!b.def.system) this.remove(b, false);
    const changed: AnyBlock[] = [];
    for (const p of prepared) {
      if (p.def.system) {
        const sys = this.byNid.get(p.nid)!;
        sys.data = withReadonly(p.def.fields, sys.data, p.data) as AnyBlock['data'];
        sys.meta = p.meta;
        changed.push(sys);
      } else {
        changed.push(this.insert(p.def, p.nid, p.id, p.data, p.meta));
      }
    }
    try {
      this.persistence.replaceBlocks(this.blocks().map((b) => this.record(b)));
    } catch (e) {
      for (const b of this.blocks()) if (!b.def.system) this.remove(b, false);
      for (const b of previous) if (!b.def.system) this.restoreInMemory(b);
      for (const p of previousSystem) Object.assign(p.block, { data: p.data, meta: p.meta });
      this.afterStructureChange();
      throw e;
    }
    for (const p of prepared) if (!p.def.system) this.persistence.reserveNid(p.nid);
    for (const b of this.blocks()) this.persisted.set(b.nid, this.recordString(b));
    if (docs && this.backupStore) messages.push(...(this.backupStore.load(docs) ?? []));
    this.afterStructureChange();
    for (const b of changed) b.nextUpdate = -Infinity;
    this.tick();
    const kept = new Set(this.blocks().map((b) => b.id));
    this.emit('change', { changed, deleted: previousIds.filter((id) => !kept.has(id)), origin });
    return { messages };
  }

  /** Put a removed block object back, volatile state and all (undoing a failed backup load). */
  private restoreInMemory(block: AnyBlock): void {
    this.byNid.set(block.nid, block);
    this.byId.set(block.id, block);
    this.ordered = null;
  }

  // ---- encoding ------------------------------------------------------------------------

  toJson(block: AnyBlock, mode: ReadMode = 'default'): BlockJson {
    const json: BlockJson = {
      id: block.id,
      nid: block.nid,
      type: block.def.type,
      serviceId: this.serviceId,
      data: encodeData(block.def.fields, block.data as Data, mode, this.units),
    };
    if (mode !== 'logged') json.meta = block.meta;
    return json;
  }

  ident(block: AnyBlock): Ident {
    return { id: block.id, nid: block.nid, type: block.def.type, serviceId: this.serviceId };
  }

  relations(): Relation[] {
    return relations(this.blocks());
  }

  claims(): Claim[] {
    return claimChains(this.blocks());
  }

  // ---- scheduler -------------------------------------------------------------------------

  /** Run every block that is due, in dependency order. Never throws. */
  tick(now = this.clock.now()): void {
    if (this.ticking) return;
    this.ticking = true;
    try {
      this.ctx.now = now;
      this.ctx.ticks = this.tickCount;
      this.ctx.wall = this.clock.wall();
      this.ordered ??= dependencyOrder(this.blocks());
      for (const block of this.ordered) {
        if (block.nextUpdate <= now && this.byNid.get(block.nid) === block) this.runUpdate(block, now);
      }
      this.tickCount++;
      this.lastTickAt = now;
    } finally {
      this.ticking = false;
    }
    this.emit('tick', now);
  }

  /** The earliest time any block wants to run. */
  nextDue(): number {
    let next = Infinity;
    for (const b of this.byNid.values()) if (b.nextUpdate < next) next = b.nextUpdate;
    return next;
  }

  private runUpdate(block: AnyBlock, now: number): void {
    const def = block.def;
    if (!def.update) {
      block.nextUpdate = Infinity;
      return;
    }
    try {
      const next = def.update(block, this.ctx);
      block.nextUpdate = Number.isFinite(next) && next > now ? next : now + IDLE_INTERVAL_MS;
    } catch (e) {
      block.nextUpdate = now + IDLE_INTERVAL_MS;
      this.log.error({ err: e, id: block.id, type: def.type }, 'block update failed');
    }
  }

  // ---- internals ---------------------------------------------------------------------------

  /** Runs the type's write hook and makes the change durable; undoes it when it cannot be stored. */
  private afterWrite(block: AnyBlock, info: Parameters<NonNullable<BlockTypeDef['onWrite']>>[1], undo: () => void): void {
    this.ctx.now = this.clock.now();
    this.ctx.wall = this.clock.wall();
    try {
      block.def.onWrite?.(block, info, this.ctx);
    } catch (e) {
      this.log.error({ err: e, id: block.id }, 'onWrite failed');
    }
    try {
      this.persist(block);
    } catch (e) {
      undo();
      this.afterStructureChange();
      throw e;
    }
    this.afterStructureChange();
    block.nextUpdate = -Infinity;
    this.tick();
  }

  private afterStructureChange(): void {
    this.ordered = null;
    this.encodings.invalidate();
    releaseStale(this.byNid.values(), (id) => this.byId.get(id));
  }

  private remove(block: AnyBlock, persist = true): void {
    try {
      block.def.onDelete?.(block, this.ctx);
    } catch (e) {
      this.log.error({ err: e, id: block.id }, 'onDelete failed');
    }
    this.byNid.delete(block.nid);
    this.byId.delete(block.id);
    this.persisted.delete(block.nid);
    this.ordered = null;
    if (persist) this.persistence.removeBlock(block.nid);
  }

  /** Write the block's record when its stored data or meta changed since the last write. */
  persist(block: AnyBlock): boolean {
    if (this.byNid.get(block.nid) !== block) return false;
    const text = this.recordString(block);
    if (this.persisted.get(block.nid) === text) return false;
    this.persistence.saveBlock(this.record(block));
    this.persisted.set(block.nid, text);
    return true;
  }

  private record(block: AnyBlock): BlockRecord {
    return {
      nid: block.nid,
      id: block.id,
      type: block.def.type,
      data: encodeData(block.def.fields, block.data as Data, 'stored', DEFAULT_UNITS),
      meta: block.meta,
    };
  }

  private recordString(block: AnyBlock): string {
    const r = this.record(block);
    return JSON.stringify([r.id, r.data, r.meta]);
  }

  private allocateNid(): number {
    let nid = this.persistence.allocateNid();
    while (this.byNid.has(nid)) nid = this.persistence.allocateNid();
    return nid;
  }

  private typeOf(type: string): BlockTypeDef<any, any> {
    const def = this.types.get(type);
    if (!def) {
      throw invalid(`unknown block type '${type}'; known types: ${[...this.types.keys()].sort().join(', ')}`, [{ path: 'type', message: `unknown block type '${type}'` }]);
    }
    return def;
  }

  private decode(def: BlockTypeDef<any, any>, data: unknown, type: string, self?: AnyBlock): Data {
    const ctx: DecodeContext = {
      prefs: this.units,
      checkLink: (id, iface) => {
        const target = this.byId.get(id);
        if (!target) return `block '${id}' does not exist`;
        if (!implementsIface(target.def, iface)) return `block '${id}' is a ${target.def.type}, which is not a ${iface}`;
        return null;
      },
    };
    const { value, issues } = decodeData(def.fields, data, ctx);
    issues.push(...this.uniquenessIssues(def, value, self));
    if (issues.length) throw invalid(`invalid ${type} data: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
    return value;
  }

  /** Values of `unique` fields (hardware addresses) that another block already holds. */
  private uniquenessIssues(def: BlockTypeDef<any, any>, given: Data, self: AnyBlock | undefined): ValidationIssue[] {
    const issues: ValidationIssue[] = [];
    for (const [name, field] of Object.entries(def.fields) as [string, Field][]) {
      const value = given[name];
      if (!field.unique || value === undefined || value === defaultValue(field)) continue;
      const holder = this.blocks().find((b) => b !== self && b.def.fields[name]?.unique && (b.data as Data)[name] === value);
      if (holder) issues.push({ path: `data.${name}`, message: `${String(value)} is already used by block '${holder.id}'` });
    }
    return issues;
  }

  private resolveIdent(input: unknown): AnyBlock {
    if (!isPlainObject(input)) throw new BlockError('bad-request', 'the body must be a JSON object naming a block by id or nid');
    const { id, nid } = input;
    if (nid !== undefined && nid !== null) {
      if (typeof nid !== 'number' || !Number.isInteger(nid)) throw invalid(`nid must be an integer, got ${JSON.stringify(nid)}`, [{ path: 'nid', message: 'must be an integer' }]);
      const block = this.byNid.get(nid);
      if (!block) throw notFound(`no block with nid ${nid}`);
      return block;
    }
    if (id === undefined || id === null) throw invalid('the body names no block: give id or nid', [{ path: 'id', message: 'required' }]);
    if (typeof id !== 'string') throw invalid(`id must be a string, got ${JSON.stringify(id)}`, [{ path: 'id', message: 'must be a string' }]);
    const block = this.byId.get(id);
    if (!block) throw notFound(`no block with id '${id}'`);
    return block;
  }

  private systemBlockById(id: string): AnyBlock | undefined {
    const b = this.byId.get(id);
    return b?.def.system ? b : undefined;
  }

  private exclusively<T>(fn: () => Promise<T> | T): Promise<T> {
    const run = this.exclusive.then(fn, fn);
    this.exclusive = run.catch(() => undefined);
    return run;
  }

  private makeContext(): UpdateContext {
    const rt = this;
    const ctx: UpdateContext = {
      now: 0,
      ticks: 0,
      wall: null,
      resolve(id, iface) {
        if (!id) return null;
        const target = rt.byId.get(id);
        return target && implementsIface(target.def, iface) ? target : null;
      },
      claim(target, claimer) {
        const r = claim(target, claimer);
        if (r.modeChanged) rt.persist(target);
        return r.held;
      },
      release(target, claimer) {
        release(target, claimer);
      },
      claimChannel(array, channel, claimer) {
        if (!array.def.io) return null;
        const ch = channels(array).find((c) => c.id === channel);
        if (!ch) return null;
        if (ch.claimedBy !== null && ch.claimedBy !== claimer.id) return null;
        ctx.releaseChannels(claimer, { array, channel });
        ch.claimedBy = claimer.id;
        return array.def.io(array, ctx) as IoArray | null;
      },
      releaseChannels(claimer, except) {
        for (const b of rt.byNid.values()) {
          for (const ch of channels(b)) {
            if (ch.claimedBy === claimer.id && !(except && except.array === b && except.channel === ch.id)) ch.claimedBy = null;
          }
        }
      },
      wake(block) {
        block.nextUpdate = Math.min(block.nextUpdate, ctx.now);
      },
      persist(block) {
        rt.persist(block);
      },
      hardware: this.hardware,
      log: this.log,
    };
    return ctx;
  }
}

interface BlockBody {
  id?: string;
  nid?: number;
  type: string;
  data: unknown;
  meta?: Record<string, unknown>;
}

/** Shape check of a Block body, shared by REST, MQTT and backup load. */
export function blockBody(input: unknown, needData: boolean): BlockBody {
  if (!isPlainObject(input)) throw new BlockError('bad-request', 'the body must be a JSON object (a block)');
  const issues: ValidationIssue[] = [];
  const { id, nid, type, data, meta } = input;
  if (typeof type !== 'string' || type === '') issues.push({ path: 'type', message: type === undefined ? 'required' : 'must be a non-empty string' });
  if (needData && !isPlainObject(data)) issues.push({ path: 'data', message: data === undefined ? 'required' : 'must be an object' });
  if (id !== undefined && (typeof id !== 'string' || !validId(id))) {
    issues.push({ path: 'id', message: 'must be a string of 1 to 200 characters, without leading or trailing spaces or control characters' });
  }
  if (nid !== undefined && (typeof nid !== 'number' || !Number.isInteger(nid) || nid < 1 || nid > MAX_NID)) issues.push({ path: 'nid', message: `must be an integer from 1 to ${MAX_NID}` });
  if (meta !== undefined && !isPlainObject(meta)) issues.push({ path: 'meta', message: 'must be an object' });
  else if (meta !== undefined && depth(meta) > MAX_META_DEPTH) issues.push({ path: 'meta', message: `may nest at most ${MAX_META_DEPTH} levels deep` });
  if (issues.length) throw invalid(`invalid block: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  return { id: id as string | undefined, nid: nid as number | undefined, type: type as string, data, meta: meta as Record<string, unknown> | undefined };
}

export const MAX_NID = 2_147_483_647;
const MAX_META_DEPTH = 32;

/** Nesting depth of a JSON value, without recursion (a hostile body could nest very deeply). */
function depth(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (d > max) max = d;
    if (d > MAX_META_DEPTH) break;
    if (v && typeof v === 'object') for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

function validId(id: string): boolean {
  // eslint-disable-next-line no-control-regex
  return id.length >= 1 && id.length <= 200 && id.trim() === id && !/[\u0000-\u001f\u007f]/.test(id);
}
