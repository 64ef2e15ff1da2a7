// What the runtime's own modules (backup, batch, rename, discovery, records, validation, the
// update context) see of the block runtime. They import this interface rather than the class,
// so runtime.ts can import them without an import cycle; BlockRuntime implements it.
import type { Partial } from '../codec/partial.js';
import type { UnitPrefs } from '../codec/units.js';
import type { Logger } from '../log.js';
import type { BlockTable } from './block-table.js';
import type { BlockJson, Ident } from './body.js';
import type { ChannelClaims } from './claims.js';
import type { Clock } from './clock.js';
import type { Hardware } from './hardware.js';
import type { LinkIndex, OutLink } from './links.js';
import type { BlockPersistence, BlockRecord } from './persistence.js';
import type { AnyBlock, BlockTypeDef, Data, WriteInfo } from './types.js';

export interface ChangeEvent {
  changed: AnyBlock[];
  deleted: string[];
  /** Where the change came from: REST and MQTT callers, discovery, backup load. */
  origin: string;
}

/** The controller's own datastore documents, saved in and restored from backups. */
export interface BackupStore {
  save(): Record<string, unknown>[];
  /**
   * Replace the documents, inside the load's transaction; returns one message per document that
   * was left out. Their change is told (events, units, alert rules) only by `committed`.
   */
  load(docs: Record<string, unknown>[]): string[] | void;
  /** The load's transaction committed: tell of the documents' change. */
  committed?(): void;
}

/**
 * Set while a batch runs (batch.ts): changes are collected and can be undone, not emitted, and
 * no block runs (a write marks its block due; the batch runs the due blocks once, committed).
 */
export interface BatchScope {
  undo: Array<() => void>;
  events: ChangeEvent[];
  /** What the hooks do to the hardware, run in order once the batch is committed (ctx.afterCommit). */
  commit: Array<() => void>;
}

export interface RuntimeCore {
  readonly serviceId: string;
  readonly version: string;
  readonly clock: Clock;
  readonly log: Logger;
  readonly hardware: Hardware;
  readonly types: Map<string, BlockTypeDef<any, any>>;
  readonly persistence: BlockPersistence;
  readonly units: UnitPrefs;
  backupStore?: BackupStore;
  /** The live blocks by nid and id, and the record text last written per nid. */
  readonly table: BlockTable;
  scope: BatchScope | null;

  blocks(): readonly AnyBlock[];
  find(id: string): AnyBlock | undefined;
  create(input: unknown, origin?: string): BlockJson;
  write(input: unknown, origin?: string): BlockJson;
  patch(input: unknown, origin?: string): BlockJson;
  delete(input: unknown, origin?: string): Ident;
  tick(now?: number): void;
  /** Look for a wall-clock jump now (and move wall-anchored progress by it). */
  checkClock(): unknown;
  emit(event: 'change', change: ChangeEvent): boolean;
  ident(block: AnyBlock): Ident;

  insert(
    def: BlockTypeDef<any, any>,
    nid: number,
    id: string,
    writableData: Data,
    meta: Record<string, unknown>,
    /** A restored block's own stored read-only values (decoded with `owned`), in place before its init. */
    owned?: Partial,
  ): AnyBlock;
  afterWrite(block: AnyBlock, info: WriteInfo, undo: () => void): void;
  changed(event: ChangeEvent): void;
  restoreInMemory(block: AnyBlock): void;
  afterStructureChange(): void;
  afterBlockChange(block: AnyBlock): void;
  afterBlockRemoved(block: AnyBlock, links: OutLink[]): void;
  /** Writable links out of a block and the blocks linking to an id (links.ts). */
  readonly links: LinkIndex;
  readonly channelClaims: ChannelClaims;
  remove(block: AnyBlock, persist?: boolean): void;
  uncreate(block: AnyBlock): void;
  persist(block: AnyBlock): boolean;
  record(block: AnyBlock): BlockRecord;
  recordString(block: AnyBlock): string;
  allocateNid(): number;
  typeOf(type: string): BlockTypeDef<any, any>;
  decode(def: BlockTypeDef<any, any>, data: unknown, type: string, self?: AnyBlock): Data;
  resolveIdent(input: unknown): AnyBlock;
  systemBlockById(id: string): AnyBlock | undefined;
  exclusively<T>(fn: () => Promise<T> | T): Promise<T>;
}
