// The block container and its scheduler, with the block API operations on top. Every
// operation is synchronous (better-sqlite3 is too), so concurrent requests cannot interleave
// inside one; discovery and backup load, which await hardware, share one lock.
import { EventEmitter } from 'node:events';
import { complete, decodeData, isPlainObject, merge, withReadonly, writable, type DecodeContext, type ValidationIssue } from '../codec/decode.js';
import { encodeData, type ReadMode } from '../codec/encode.js';
import { defaultValue, type Field } from '../codec/fields.js';
import { decodeWithLegacy } from '../codec/legacy.js';
import { DEFAULT_UNITS, type UnitPrefs } from '../codec/units.js';
import { silentLogger, type Logger } from '../log.js';
import { claim, claimChains, channels, relations, release, releaseStale, type Claim, type Relation } from './claims.js';
import type { Clock } from './clock.js';
import { BlockError, conflict, invalid, notFound } from './errors.js';
import { EncodeCache } from './encode-cache.js';
import { noHardware, type Hardware } from './hardware.js';
import { checkRecordSize } from './limits.js';
import { dependencyOrder } from './order.js';
import type { BlockPersistence, BlockRecord, RawRecord } from './persistence.js';
import { loadBackup, saveBackup, type Backup, type BackupStore } from './backup.js';
import { blockBody, FIRST_USER_NID, type BlockJson, type Ident } from './body.js';
import { runBatch, type BatchScope } from './batch.js';
import { renameBlock } from './rename.js';
import { implementsIface, type AnyBlock, type BlockTypeDef, type Data, type IoArray, type UpdateContext } from './types.js';

export { blockBody, FIRST_USER_NID, MAX_NID, type BlockJson, type Ident } from './body.js';
export type { Backup, BackupStore } from './backup.js';

const IDLE_INTERVAL_MS = 1000;

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
  // Members below without an access modifier are internal: the runtime's own modules
  // (backup.ts, batch.ts, rename.ts) use them; API code does not.
  readonly persistence: BlockPersistence;
  private readonly unitsOf: () => UnitPrefs;
  readonly byNid = new Map<number, AnyBlock>();
  readonly byId = new Map<string, AnyBlock>();
  readonly persisted = new Map<number, string>();
  ordered: AnyBlock[] | null = null;
  /** Set while a batch runs (batch.ts): changes are collected and can be undone, not emitted. */
  scope: BatchScope | null = null;
  private exclusive: Promise<unknown> = Promise.resolve();
  private ctx: UpdateContext;
  private ticking = false;
  /** Monotonic time of the last completed scheduler tick (the watchdog watches it). */
  lastTickAt = -Infinity;
  /** Control disabled (PUT settings/enabled false): no block runs until it is enabled again. */
  paused = false;
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

  insert(def: BlockTypeDef<any, any>, nid: number, id: string, writableData: Data, meta: Record<string, unknown>): AnyBlock {
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
    this.scope?.undo.push(() => this.remove(block, false));
    this.changed({ changed: [block], deleted: [], origin });
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
    const undo = () => {
      block.data = previous as AnyBlock['data'];
      block.meta = previousMeta;
    };
    this.afterWrite(block, { previous, patch: isPatch, given }, undo);
    this.scope?.undo.push(undo);
    this.changed({ changed: [block], deleted: [], origin });
    return this.toJson(block);
  }

  delete(input: unknown, origin = 'api'): Ident {
    const block = this.resolveIdent(input);
    if (block.def.system) throw conflict(`'${block.id}' is a system block and cannot be deleted`);
    this.remove(block);
    this.scope?.undo.push(() => this.restoreInMemory(block));
    this.afterStructureChange();
    this.changed({ changed: [], deleted: [block.id], origin });
    return this.ident(block);
  }

  /** Change a block's id; links to it follow (rename.ts). */
  rename(input: unknown, origin = 'api'): Ident {
    return renameBlock(this, input, origin);
  }

  /** A list of creates, writes, patches or deletes, all or nothing (batch.ts). */
  batch(op: 'create' | 'write' | 'patch', input: unknown, origin = 'api'): BlockJson[] {
    return runBatch(this, op, input, origin);
  }

  deleteMany(input: unknown, origin = 'api'): Ident[] {
    return runBatch(this, 'delete', input, origin);
  }

  /** Decode a block body as create would, without storing anything. */
  validate(input: unknown): { type: string; data: Record<string, unknown> } {
    const body = blockBody(input, true);
    const def = this.typeOf(body.type);
    const self = body.id !== undefined ? this.byId.get(body.id) : undefined;
    const value = this.decode(def, body.data, body.type, self);
    return { type: def.type, data: encodeData(def.fields, { ...withReadonly(def.fields, undefined, complete(def.fields, value)) }, 'default', this.units) };
  }

  readAll(mode: ReadMode = 'default'): BlockJson[] {
    return this.blocks().map((b) => this.toJson(b, mode));
  }

  /** `JSON.stringify(read(input, mode))`, from the encoding cache. */
  readText(input: unknown, mode: ReadMode = 'default'): string {
    return this.encodings.text(this.resolveIdent(input), mode);
  }

  /** The same as UTF-8 bytes (what blocks/read answers). */
  readBytes(input: unknown, mode: ReadMode = 'default'): Buffer {
    return this.encodings.bytes(this.resolveIdent(input), mode);
  }

  /** `JSON.stringify(readAll(mode))`, from the encoding cache. */
  readAllText(mode: ReadMode = 'default'): string {
    return this.encodings.list(mode);
  }

  /** The same as UTF-8 bytes (what all/read answers). */
  readAllBytes(mode: ReadMode = 'default'): Buffer {
    return this.encodings.listBytes(mode);
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
    return saveBackup(this);
  }

  /** Replace every block (and the controller's datastore documents) with a backup's. */
  backupLoad(input: unknown, origin = 'backup'): Promise<{ messages: string[] }> {
    return loadBackup(this, input, origin);
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
    if (this.ticking || this.paused) return;
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
  afterWrite(block: AnyBlock, info: Parameters<NonNullable<BlockTypeDef['onWrite']>>[1], undo: () => void): void {
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

  /** Emit a change, or collect it while a batch runs. */
  changed(event: ChangeEvent): void {
    if (this.scope) this.scope.events.push(event);
    else this.emit('change', event);
  }

  /** Put a removed block object back, volatile state and all (undoing a failed batch or load). */
  restoreInMemory(block: AnyBlock): void {
    this.byNid.set(block.nid, block);
    this.byId.set(block.id, block);
    this.ordered = null;
  }

  afterStructureChange(): void {
    this.ordered = null;
    this.encodings.invalidate();
    releaseStale(this.byNid.values(), (id) => this.byId.get(id));
  }

  remove(block: AnyBlock, persist = true): void {
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
    checkRecordSize(block.id, text);
    this.persistence.saveBlock(this.record(block));
    this.persisted.set(block.nid, text);
    return true;
  }

  record(block: AnyBlock): BlockRecord {
    return {
      nid: block.nid,
      id: block.id,
      type: block.def.type,
      data: encodeData(block.def.fields, block.data as Data, 'stored', DEFAULT_UNITS),
      meta: block.meta,
    };
  }

  recordString(block: AnyBlock): string {
    const r = this.record(block);
    return JSON.stringify([r.id, r.data, r.meta]);
  }

  allocateNid(): number {
    let nid = this.persistence.allocateNid();
    while (this.byNid.has(nid)) nid = this.persistence.allocateNid();
    return nid;
  }

  typeOf(type: string): BlockTypeDef<any, any> {
    const def = this.types.get(type);
    if (!def) {
      throw invalid(`unknown block type '${type}'; known types: ${[...this.types.keys()].sort().join(', ')}`, [{ path: 'type', message: `unknown block type '${type}'` }]);
    }
    return def;
  }

  decode(def: BlockTypeDef<any, any>, data: unknown, type: string, self?: AnyBlock): Data {
    const ctx: DecodeContext = {
      prefs: this.units,
      checkLink: (id, iface) => {
        const target = this.byId.get(id);
        if (!target) return `block '${id}' does not exist`;
        if (!implementsIface(target.def, iface)) return `block '${id}' is a ${target.def.type}, which is not a ${iface}`;
        return null;
      },
    };
    const { value, issues } = decodeWithLegacy(def.fields, def.legacy, data, ctx);
    issues.push(...this.uniquenessIssues(def, value, self));
    if (issues.length) throw invalid(`invalid ${type} data: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
    return value;
  }

  /** Values of `unique` fields (hardware addresses) that another block already holds. */
  uniquenessIssues(def: BlockTypeDef<any, any>, given: Data, self: AnyBlock | undefined): ValidationIssue[] {
    const issues: ValidationIssue[] = [];
    for (const [name, field] of Object.entries(def.fields) as [string, Field][]) {
      const value = given[name];
      if (!field.unique || value === undefined || value === defaultValue(field)) continue;
      const holder = this.blocks().find((b) => b !== self && b.def.fields[name]?.unique && (b.data as Data)[name] === value);
      if (holder) issues.push({ path: `data.${name}`, message: `${String(value)} is already used by block '${holder.id}'` });
    }
    return issues;
  }

  resolveIdent(input: unknown): AnyBlock {
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

  systemBlockById(id: string): AnyBlock | undefined {
    const b = this.byId.get(id);
    return b?.def.system ? b : undefined;
  }

  exclusively<T>(fn: () => Promise<T> | T): Promise<T> {
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
