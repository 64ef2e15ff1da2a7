// What a block type is made of, and what its behaviour can ask of the runtime.
import type { DataOf, FieldTable } from '../codec/fields.js';
import type { ValidationIssue } from '../codec/partial.js';
import type { LegacyTable } from '../codec/legacy.js';
import type { UnitPrefs } from '../codec/units.js';
import type { Logger } from '../log.js';
import type { Hardware } from './hardware.js';
import type { ImplementableBy, Resolve } from './interfaces.js';
import type { BlockRole, EntitySpec } from './traits.js';

export type Data = Record<string, unknown>;

export interface Block<F extends FieldTable = FieldTable, S = unknown> {
  readonly nid: number;
  id: string;
  readonly def: BlockTypeDef<F, S>;
  data: DataOf<F>;
  meta: Record<string, unknown>;
  /** Volatile behaviour state: never persisted. */
  state: S;
  nextUpdate: number;
}

export type AnyBlock = Block<FieldTable, any>;

/** A channel array (MockPins, DS2408, DS2413, GpioPins). Channels are numbered from 1. */
export interface IoArray {
  readonly channelCount: number;
  /** Logical pin state (active = true), or null when it cannot be read. */
  read(channel: number): boolean | null;
  write(channel: number, active: boolean): void;
  /** Fast PWM (FastPwm, soft start): duty 0-100 % at `hz`; only on arrays with PWM channels. */
  writeDuty?(channel: number, duty: number, hz: number): void;
  /** The duty the channel achieves, or null when unknown. */
  readDuty?(channel: number): number | null;
  /**
   * When the hardware last found the channel's output off that it had switched on (a relay
   * board's power-on reset), or null. The output stays off until written on again.
   */
  lostAt?(channel: number): number | null;
}

export interface UpdateContext {
  now: number;
  /** Scheduler ticks completed so far (SysInfo derives updates per second from it). */
  ticks: number;
  /** Epoch milliseconds, or null when the wall clock is not valid. */
  wall: number | null;
  /**
   * The last valid wall-clock reading (epoch ms; before this start, the one the service saved),
   * or null: where wall-anchored progress (a profile's place) holds while `wall` is null
   * (wallForProgress).
   */
  lastWall: number | null;
  /** Resolve a link: the target, typed as `iface` promises, when it exists and implements `iface`; else null. */
  resolve: Resolve;
  /** First come, first served: true when `claimer` holds `target` after the call. */
  claim(target: AnyBlock, claimer: AnyBlock): boolean;
  release(target: AnyBlock, claimer: AnyBlock): void;
  /** Claim channel `channel` of an IoArray block for `claimer`; returns the array when held. */
  claimChannel(array: AnyBlock, channel: number, claimer: AnyBlock): IoArray | null;
  releaseChannels(claimer: AnyBlock, except?: { array: AnyBlock; channel: number }): void;
  /** Ask the runtime to update `block` again within this tick (after the current block). */
  wake(block: AnyBlock): void;
  /** Persist the block's stored data now, if it changed (e.g. an output forced off). */
  persist(block: AnyBlock): void;
  /**
   * A write hook changes more than the written block's data (its volatile state, another block):
   * `undo` puts that back when the write's batch fails, with the write. Outside a batch it is
   * never called.
   */
  undoable(undo: () => void): void;
  /**
   * What a write or delete hook does to the hardware (an output switched off, a chip let go):
   * `act` runs at once, or in a batch once the batch is committed, in the batch's order; never
   * when the batch fails. Resolve what `act` needs before (the blocks as they are at the item:
   * an IO block deleted later in the batch is still reached) and only act in it.
   */
  afterCommit(act: () => void): void;
  /**
   * `block` (moved away or deleted) no longer names the chip `key` (BlockTypeDef.chip): let go
   * of it once the change is committed, as afterCommit. When no block names it then, `hw.release`
   * makes it safe. When a block took it over in the change, `hw.handOver` gives it to that block
   * (never making it safe): its blocks run in the tick that follows the commit at once, before the
   * next poll, so what no block of its drives goes off and an output on before and after stays on.
   * When `block` names it again (moved away and back in one batch), nothing changes. When a block
   * that named it beside `block` still does (a second block on it that a backup or an older store
   * holds), the chip stays in use and `hw.outputsOff` gets the outputs that only `block` drove
   * (BlockTypeDef.driven, as at the item), which go back to their safe state: the other block's
   * outputs are not touched.
   */
  letGoOfChip(block: AnyBlock, key: string, hw: ChipLetGo): void;
  /**
   * A write hook is about to change `block`, another block than the one written (an APPLY sets
   * the pair's gains): call it first, so a batch that fails puts `block`'s data back with the
   * write. Outside a batch it does nothing.
   */
  changing(block: AnyBlock): void;
  /** Blocks whose writable links name `id` (the actuators on a mutex, the PIDs on a setpoint). */
  referrers(id: string): readonly AnyBlock[];
  /** The brewer's units (the units document), for what a block says in words. */
  readonly units: UnitPrefs;
  hardware: Hardware;
  log: Logger;
}

/** What letting go of a chip does to it (UpdateContext.letGoOfChip). */
export interface ChipLetGo {
  release(): void;
  handOver(): void;
  /** These outputs (bit n - 1 for output n) back to their safe state; the chip's others as they are. */
  outputsOff(outputs: number): void;
}

/** The wall clock moved without the time passing for the controller (BlockTypeDef.wallMoved). */
export interface WallMove {
  /** + forward, - backward. */
  byMs: number;
  /** 'jump': seen while running; 'restart': the time the service was stopped, as the clock shows it. */
  reason: 'jump' | 'restart';
  /** The wall clock now, epoch ms (after the move); null when it is not valid. */
  wall: number | null;
}

/** What a data check sees besides the new data (BlockTypeDef.checkData). */
export interface CheckContext {
  /** The block before the change; undefined on create. */
  self: AnyBlock | undefined;
  referrers(id: string): readonly AnyBlock[];
  /** The brewer's units, for what a refusal says in words. */
  units: UnitPrefs;
}

export interface WriteInfo {
  /** Data before the write (undefined on create). */
  previous: Data | undefined;
  patch: boolean;
  /** The decoded input: the fields the caller actually gave. */
  given: Data;
}

export interface BlockTypeDef<F extends FieldTable = FieldTable, S = unknown> {
  type: string;
  /** Where the dashboard groups it (published as x-role in the OpenAPI document). */
  role: BlockRole;
  fields: F;
  /** The Home Assistant entities a block of this type becomes (none: not announced). */
  homeAssistant?: readonly EntitySpec[];
  /** Names older Brewblox clients and backups send, and what becomes of them (codec/legacy.ts). */
  legacy?: LegacyTable;
  /** Link interfaces this type satisfies (its own type name is implied); only those its data and state keep (interfaces.ts). */
  implements: readonly ImplementableBy<DataOf<F>, S>[];
  description?: string;
  /** System types exist once, at a fixed nid, and cannot be created or deleted. */
  system?: { nid: number; id: string };
  /** Discovered types are normally created by discovery, but may also be created by hand. */
  discovered?: boolean;
  /**
   * The one chip the block stands for, in words that name it (`I2C bus 1, address 0x20`); null
   * while it names none. One block per chip: a create, write or patch that puts a block on a chip
   * another block has is refused, naming that block (blocks a backup or an older store already
   * holds on one chip load as they are); a chip is let go only when no block names it
   * (UpdateContext.letGoOfChip).
   */
  chip?(data: Data): string | null;
  /**
   * The chip's outputs the block drove (bit n - 1 for output n), written through its IoArray
   * since it named the chip: those a block leaves on a chip another block still names go off
   * (UpdateContext.letGoOfChip). Blocks with `chip` that drive outputs have it.
   */
  driven?(block: Block<F, S>): number;
  /** Fresh volatile state, after create and after load. */
  init?(block: Block<F, S>): S;
  /** Run when due; returns the absolute time (ms) it next wants to run. */
  update?(block: Block<F, S>, ctx: UpdateContext): number;
  /**
   * Rules across fields and other blocks that decoding cannot see (create, write, patch; REST
   * and MQTT alike): `data` is the block's data after the change, `resolve` finds a linked block,
   * `check` has the block as it is (undefined on create) and who links to a block.
   */
  checkData?(data: Data, resolve: Resolve, check: CheckContext): ValidationIssue[];
  /** Called after the new data is in place, before the forced update. */
  onWrite?(block: Block<F, S>, info: WriteInfo, ctx: UpdateContext): void;
  onDelete?(block: Block<F, S>, ctx: UpdateContext): void;
  /**
   * Work under way that replacing the block (a backup load) ends, in words ("a tuning, cycle 2
   * of 4"); null when there is none. The load says so in its warnings.
   */
  underway?(block: Block<F, S>): string | null;
  /**
   * Sensors: true while the value is null only because the hardware (or the sensors) behind it
   * have not been read since the start or since it was created; kept by `update` in the block's
   * state. Setpoints: true until their first update (the setting is not known before). Alert
   * conditions wait for the first reading instead of calling it a fault (start-up is a state,
   * DESIGN §11).
   */
  pending?(block: Block<F, S>): boolean;
  /**
   * Progress anchored to the wall clock (a profile's `start`): the wall clock moved by `byMs`
   * while that much time did not pass for the controller: a jump seen while running, or the
   * time the service was stopped (docs/blocks.md, "Time"). Returns true when stored data
   * changed (the runtime persists it and reports the change).
   */
  wallMoved?(block: Block<F, S>, move: WallMove): boolean;
  /**
   * For a type with driving links: whether the block, enabled, claims its targets when it next
   * updates (a profile only once it has started); without it, whenever enabled. The runtime takes
   * claims from the links by it at a load and after a change (claims.ts, claimByLinks), so it must
   * say what the update does. `wall`: the time wall-anchored progress reads (wallForProgress:
   * the wall clock, or while it is not set the last one seen), epoch ms, or null.
   */
  drivesNow?(block: Block<F, S>, wall: number | null): boolean;
  /**
   * A block on one IO channel (DigitalActuator, FastPwm, MotorValve, DigitalInput): its update
   * claims the channel `data.channel` of the array its `hwDevice` links to, through this
   * interface (blocks/shared/channel.ts, claimOwnChannel). A load and a change take that claim
   * the same way at once (claims.ts, claimChannels).
   */
  channelVia?: 'IoArrayInterface' | 'DS2408Interface';
  /**
   * Block ids the block keeps outside its link fields (a Sequence's instructions): the block
   * `from` is now `to`. Returns how to undo the change when stored data changed, else null.
   */
  renamed?(block: Block<F, S>, from: string, to: string): (() => void) | null;
  /**
   * The same block ids `renamed` follows, where the block keeps each: its field path in the data
   * (blocks/delete lists those naming the deleted block among its `dangling`).
   */
  names?(block: Block<F, S>): Array<{ id: string; field: string }>;
  /**
   * Blocks whose stored data this block's record must not get ahead of (a Sequence: the blocks
   * the lines it passed changed). Whenever the block is stored, by whatever path (its own
   * update, another block's, a write, a rename), the runtime stores these first through `store`;
   * the hook forgets each once stored.
   */
  storedWith?(block: Block<F, S>, store: (other: AnyBlock) => void): void;
  /** For IoArrayInterface implementers. */
  io?(block: Block<F, S>, ctx: UpdateContext): IoArray | null;
}

/**
 * The wall time wall-anchored progress (a profile's place) reads: the wall clock, or while it is
 * not set the last valid reading (after a start on a clock not set, the one the service saved);
 * null when none was ever seen. A block's update and the claims taken at a load (drivesNow) both
 * read it here.
 */
export function wallForProgress(at: { wall: number | null; lastWall: number | null }): number | null {
  return at.wall ?? at.lastWall;
}

export function defineBlock<F extends FieldTable, S = undefined>(def: BlockTypeDef<F, S>): BlockTypeDef<F, S> {
  return def;
}

/** Whether a block (or a linked one) has had no reading yet since the start (BlockTypeDef.pending). */
export function readingPending(block: Pick<AnyBlock, 'def'> & { data: unknown; state: unknown }): boolean {
  return block.def.pending?.(block as AnyBlock) ?? false;
}

export function implementsIface(def: BlockTypeDef<any, any>, iface: string): boolean {
  return iface === 'Any' || def.type === iface || (def.implements as readonly string[]).includes(iface);
}
