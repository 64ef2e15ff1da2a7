// The block container and its scheduler, with the block API operations on top. Every
// operation is synchronous (better-sqlite3 is too), so concurrent requests cannot interleave
// inside one; discovery and backup load, which await hardware, share one lock.
import { EventEmitter } from 'node:events';
import type { ReadMode } from '../codec/encode.js';
import type { Partial } from '../codec/partial.js';
import { DEFAULT_UNITS, type UnitPrefs } from '../codec/units.js';
import { silentLogger, type Logger } from '../log.js';
import { ChannelClaims, claimChains, relations, type Claim, type Relation } from './claims.js';
import { LinkIndex, type OutLink } from './links.js';
import type { Clock, ClockJump, WallClockWatch } from './clock.js';
import { ALL, Reads, type Encoded, type HistoryData } from './reads.js';
import { noHardware, type Hardware } from './hardware.js';
import { SchedulerOrder } from './order.js';
import type { BlockPersistence, BlockRecord } from './persistence.js';
import { loadBackup, saveBackup, type Backup, type BackupLoadResult } from './backup.js';
import { BlockTable } from './block-table.js';
import { insertBlock, reindexAll, reindexBlock, reindexRemoved } from './block-indexes.js';
import { resolveIdent, type BlockJson, type Ident } from './body.js';
import { runBatch } from './batch.js';
import type { BackupStore, BatchScope, ChangeEvent, RuntimeCore } from './core.js';
import { discoverBlocks, type Discoverer } from './discover.js';
import { blockRecord, loadStored, persistBlock, recordText } from './records.js';
import type { RuntimeEvents as Events, RuntimeOptions } from './runtime-options.js';
import { renameBlock } from './rename.js';
import { Scheduler } from './scheduler.js';
import { makeUpdateContext } from './update-context.js';
import { UnsavedBlocks } from './unsaved.js';
import { decodeBlockData, typeOf, validateBody } from './validation.js';
import { createBlock, deleteAllBlocks, deleteBlock, updateBlock, type Deleted } from './writes.js';
import type { AnyBlock, BlockTypeDef, Data, UpdateContext, WallMove, WriteInfo } from './types.js';
import { wallForProgress } from './types.js';

export { ALL, type Encoded, type HistoryData, type ReadMode } from './reads.js';
export { blockBody, FIRST_USER_NID, MAX_NID, type BlockJson, type Ident } from './body.js';
export type { Backup } from './backup.js';
export type { BackupStore, ChangeEvent } from './core.js';
export type { DiscoveredBlock, Discoverer } from './discover.js';
export type { RuntimeOptions } from './runtime-options.js';

export class BlockRuntime extends EventEmitter<Events> implements RuntimeCore {
  readonly serviceId: string;
  readonly version: string;
  readonly clock: Clock;
  readonly log: Logger;
  readonly hardware: Hardware;
  readonly types = new Map<string, BlockTypeDef<any, any>>();
  readonly discoverers: Discoverer[];
  backupStore?: BackupStore;
  // Members below without an access modifier are internal: the runtime's own modules use
  // them through RuntimeCore (core.ts); API code does not.
  readonly persistence: BlockPersistence;
  private readonly unitsOf: () => UnitPrefs;
  readonly table = new BlockTable();
  /** Writable links per block and the blocks linking to each id (links.ts). */
  readonly links = new LinkIndex(() => this.table.values());
  /** Which arrays each claimer holds channels on (claims.ts). */
  readonly channelClaims = new ChannelClaims(() => this.table.values());
  /** The scheduler's dependency order, kept up to date block by block (order.ts). */
  readonly order = new SchedulerOrder(
    () => this.blocks(),
    this.links,
    (id) => this.table.byId(id),
  );
  /** Set while a batch runs (batch.ts): changes are collected and can be undone, not emitted, and no block runs. */
  scope: BatchScope | null = null;
  private exclusive: Promise<unknown> = Promise.resolve();
  private ctx: UpdateContext;
  /** The tick and the clocks it runs on (scheduler.ts). */
  private readonly scheduler: Scheduler;
  /** Monotonic time of the last completed scheduler tick (the watchdog watches it). */
  lastTickAt = -Infinity;
  /** Control disabled (PUT settings/enabled false): no block runs until it is enabled again. */
  paused = false;
  tickCount = 0;
  private readonly unsaved = new UnsavedBlocks(this);
  /** Every read (read()) goes through the encoding cache here; nothing outside the runtime sees it. */
  private readonly reads: Reads;
  /** Wall-clock jumps, looked for before every tick and write (checkClock). */
  readonly wallWatch: WallClockWatch;
  /** True while a jump forward is time the service was stopped, moved as a restart (src/service/wall-clock.ts). */
  jumpIsTimeStopped: () => boolean = () => false;

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
    this.ctx = makeUpdateContext(this, this.unsaved);
    this.reads = new Reads(this);
    this.scheduler = new Scheduler(this, this.ctx, this.unsaved, () => this.reads.invalidate());
    this.wallWatch = this.scheduler.wallWatch;
  }

  get units(): UnitPrefs {
    return this.unitsOf();
  }

  /** Every block by nid: a shared array, the same until a block is added or removed. */
  blocks(): readonly AnyBlock[] {
    return this.table.sortedByNid();
  }

  find(id: string): AnyBlock | undefined {
    return this.table.byId(id);
  }

  // ---- start-up -------------------------------------------------------------------------

  /** Create the system blocks, then restore every stored block. Bad records are quarantined. */
  load(): void {
    loadStored(this);
  }

  insert(
    def: BlockTypeDef<any, any>,
    nid: number,
    id: string,
    writableData: Data,
    meta: Record<string, unknown>,
    owned?: Partial,
  ): AnyBlock {
    return insertBlock(this, def, nid, id, writableData, meta, owned);
  }

  // ---- block API --------------------------------------------------------------------------
  // Each change looks for a wall-clock jump first, so a jump moves what was there, never what is written.

  create(input: unknown, origin = 'api'): BlockJson {
    this.checkClock();
    return createBlock(this, input, origin);
  }

  /**
   * The one read: a block named by an ident body (`{id}` or `{nid}`, as blocks/read takes it; a
   * block of a change event names itself) or every block (`ALL`, by nid), in a read mode
   * (default, stored, logged) and the user's unit preference; for ALL also the history mode:
   * each block's logged numbers, the history message's data. A block that is not there throws
   * at once; the encoding happens when the Encoded is asked for the value or its bytes (reads.ts).
   */
  read(which: typeof ALL, mode: 'history'): Encoded<HistoryData>;
  read(which: typeof ALL, mode?: ReadMode): Encoded<BlockJson[]>;
  read(which: unknown, mode?: ReadMode): Encoded<BlockJson>;
  read(which: unknown, mode: ReadMode | 'history' = 'default'): Encoded<unknown> {
    if (which === ALL) return mode === 'history' ? this.reads.history() : this.reads.list(mode);
    if (mode === 'history') throw new Error('the history mode reads every block (ALL)');
    return this.reads.block(this.resolveIdent(which), mode);
  }

  /** Blocks encoded since start: reads the encoding cache could not serve. */
  get encodeMisses(): number {
    return this.reads.misses;
  }

  write(input: unknown, origin = 'api'): BlockJson {
    this.checkClock();
    return updateBlock(this, input, false, origin);
  }

  patch(input: unknown, origin = 'api'): BlockJson {
    this.checkClock();
    return updateBlock(this, input, true, origin);
  }

  /** Delete a block; the answer names the links of other blocks that now point nowhere. */
  delete(input: unknown, origin = 'api'): Deleted {
    this.checkClock();
    return deleteBlock(this, input, origin);
  }

  /** Change a block's id; links to it follow (rename.ts). */
  rename(input: unknown, origin = 'api'): Ident {
    this.checkClock();
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
    return validateBody(this, input);
  }

  deleteAll(origin = 'api'): Ident[] {
    return deleteAllBlocks(this, origin);
  }

  /** Search every bus and create blocks for devices that have none. Returns only new blocks. */
  discover(origin = 'api'): Promise<BlockJson[]> {
    return discoverBlocks(this, this.discoverers, origin);
  }

  backupSave(): Backup {
    return saveBackup(this);
  }

  /** Replace every block (and the controller's datastore documents) with a backup's. */
  backupLoad(input: unknown, origin = 'backup'): Promise<BackupLoadResult> {
    return loadBackup(this, input, origin);
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

  /** The block set's id (BlockPersistence.blockSet): another after a backup load or on another data dir. */
  blockSet(): string {
    return this.persistence.blockSet();
  }

  // ---- scheduler (scheduler.ts) ---------------------------------------------------------------

  /** Looks for a wall-clock jump since the last look, and moves wall-anchored progress by it. */
  checkClock(): ClockJump | null {
    return this.scheduler.checkClock();
  }

  /**
   * A start on a clock not set: the wall time the service saw last (ctx.lastWall) before it. The
   * claims taken at load, before it was known, are taken again by it, as the first tick takes them.
   */
  wallLastSeen(at: number): void {
    this.scheduler.wallLastSeen(at);
    this.afterStructureChange();
  }

  /** The time wall-anchored progress reads now, as a tick would read it (claims at a load). */
  wallForProgress(): number | null {
    return wallForProgress({ wall: this.clock.wall(), lastWall: this.ctx.lastWall });
  }

  /** The wall clock moved by time that did not pass for the controller (a jump, or the time it was stopped). */
  moveWall(move: WallMove): void {
    this.scheduler.moveWall(move);
  }

  /** Run every block that is due, in dependency order. Never throws. */
  tick(now = this.clock.now()): void {
    this.scheduler.tick(now);
  }

  /** The earliest time any block wants to run (with `slackMs`: see scheduler.ts). */
  nextDue(slackMs = 0): number {
    return this.scheduler.nextDue(slackMs);
  }

  // ---- internals ---------------------------------------------------------------------------

  /**
   * Runs the type's write hook and makes the change durable (undone when it cannot be stored);
   * the block is then due. Every change runs in a scope (scope.ts), which runs the due blocks
   * once, after the change is committed: a batch after its last item.
   */
  afterWrite(block: AnyBlock, info: WriteInfo, undo: () => void): void {
    const due = block.nextUpdate;
    this.scheduler.readClocks();
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
    this.afterBlockChange(block);
    this.scheduler.written(block, due, this.scope);
  }

  /** Emit a change, or collect it while a batch runs. */
  changed(event: ChangeEvent): void {
    if (this.scope) this.scope.events.push(event);
    else this.emit('change', event);
  }

  /** Put a removed block object back, volatile state and all (undoing a failed batch or load). */
  restoreInMemory(block: AnyBlock): void {
    this.table.add(block);
    this.afterStructureChange();
  }

  /** A block a claim taken from the links switched to CLAIMED (block-indexes.ts). */
  persistClaimed(block: AnyBlock): void {
    this.unsaved.persist(block);
  }

  /** After changes to many blocks (load, backup, rename, a batch undone): everything is looked at again. */
  afterStructureChange(): void {
    reindexAll(this, this.reads);
  }

  /** After one block was created or its data changed: links, order and claims follow (block-indexes.ts). */
  afterBlockChange(block: AnyBlock): void {
    reindexBlock(this, this.reads, block);
  }

  /** After one block was removed: claims it held on what it linked to are dropped. */
  afterBlockRemoved(block: AnyBlock, links: OutLink[]): void {
    reindexRemoved(this, this.reads, block, links);
  }

  remove(block: AnyBlock, persist = true): void {
    try {
      block.def.onDelete?.(block, this.ctx);
    } catch (e) {
      this.log.error({ err: e, id: block.id }, 'onDelete failed');
    }
    this.drop(block, persist);
  }

  /**
   * Take back a block whose creation is undone (its batch failed, or it could not be stored). It
   * never ran, so it drove and claimed nothing: no delete hook, which would let go of hardware
   * another block uses (a second block named for the same I2C chip).
   */
  uncreate(block: AnyBlock): void {
    this.drop(block, false);
  }

  private drop(block: AnyBlock, persist: boolean): void {
    // Stored first: a delete that cannot be stored leaves the block in memory.
    if (persist) this.persistence.removeBlock(block.nid);
    this.table.remove(block);
    this.order.removed(block);
    this.links.remove(block);
  }

  /** Write the block's record when its stored data or meta changed since the last write (records.ts). */
  persist(block: AnyBlock): boolean {
    return persistBlock(this, block);
  }

  record(block: AnyBlock): BlockRecord {
    return blockRecord(block);
  }

  recordString(block: AnyBlock): string {
    return recordText(block);
  }

  allocateNid(): number {
    let nid = this.persistence.allocateNid();
    while (this.table.hasNid(nid)) nid = this.persistence.allocateNid();
    return nid;
  }

  typeOf(type: string): BlockTypeDef<any, any> {
    return typeOf(this.types, type);
  }

  decode(def: BlockTypeDef<any, any>, data: unknown, type: string, self?: AnyBlock): Data {
    return decodeBlockData(this, def, data, type, self);
  }

  resolveIdent(input: unknown): AnyBlock {
    return resolveIdent(input, this.table);
  }

  systemBlockById(id: string): AnyBlock | undefined {
    const b = this.table.byId(id);
    return b?.def.system ? b : undefined;
  }

  exclusively<T>(fn: () => Promise<T> | T): Promise<T> {
    const run = this.exclusive.then(fn, fn);
    this.exclusive = run.catch(() => undefined);
    return run;
  }
}
