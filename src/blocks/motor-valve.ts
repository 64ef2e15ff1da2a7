// MotorValve: a motorised ball valve on the Brewblox valve board, four channels of a DS2408 in
// valve mode from start channel 1 or 5 (reference §5.5): +0 "is closed" and +1 "is open" end
// switches (read back; active = pin low), +2 and +3 the H-bridge inputs. The bridge inputs are
// pulled up, so a latch that is on drives its input low: to open, the +3 latch goes on and +2
// off; to close, the reverse. The drive stays on at the end stop (the valve has its own). Moved
// to another start channel or board, unlinked or deleted, it stops the motor it drove.
// ACTIVE = open, anything else (INACTIVE, UNKNOWN) = close. The digital time constraints
// (minOff, minOn, delayedOn, delayedOff) apply to the direction, from the one the end switches
// show at the start, held since long ago (a restart is no change of direction, and minOn and
// minOff are already met); a mutexed constraint is not supported on valves and blocks opening
// while enabled. With its end switches unread it is driven one way for VALVE_BLIND_DRIVE_MS at
// most.
import { f } from '../codec/fields.js';
import { digitalConstrainedBy, legacy, type LegacyTable } from '../codec/legacy.js';
import { defineBlock, type AnyBlock, type UpdateContext } from '../runtime/types.js';
import { isActive } from './digital-actuator.js';
import { claimOwnChannel, drivenIo, type DrivenOutput } from './shared/channel.js';
import { awaitFirstRead, constrainedSwitch, record, type SwitchTiming } from './shared/digital-constraints.js';
import type { DigitalStateName } from './shared/enums.js';
import { claimableFields, digitalConstraintsField, digitalState, digitalStateOrNull } from './shared/fields.js';
import { desired, type Driven, returnToStoredOnPatch } from './shared/pipeline.js';

export const ValveState = {
  VALVE_UNKNOWN: 0,
  VALVE_OPEN: 1,
  VALVE_CLOSED: 2,
  VALVE_OPENING: 3,
  VALVE_CLOSING: 4,
  VALVE_HALF_OPEN_IDLE: 5,
  VALVE_INIT_IDLE: 6,
} as const;
type ValveStateName = keyof typeof ValveState;

const INTERVAL_MS = 1000;
/**
 * How long a valve whose end switches cannot be read is driven one way: long enough for a slow
 * valve's full stroke, after which its motor is stopped rather than driven blind for ever.
 */
export const VALVE_BLIND_DRIVE_MS = 60_000;
const MUTEX_RETRY_MS = 1000;

const fields = {
  hwDevice: f.link('DS2408Interface', { stored: true, drives: true, description: 'a DS2408 in CONNECT_VALVE mode' }),
  channel: f.number({
    stored: true,
    integer: true,
    min: 0,
    max: 8,
    description: 'start channel: 1 (valve B) or 5 (valve A); 0 = none',
  }),
  storedState: digitalState({ logged: true, stored: true, description: 'ACTIVE = open' }),
  desiredState: digitalStateOrNull({ readonly: true, logged: true }),
  state: digitalStateOrNull({
    readonly: true,
    logged: true,
    description: 'ACTIVE when open, INACTIVE when closed, UNKNOWN in between; null when unreadable',
  }),
  valveState: f.enumOrNull(ValveState, {
    readonly: true,
    logged: true,
    description: 'from the end switches and the drive direction',
  }),
  constraints: digitalConstraintsField,
  ...claimableFields,
};

const legacyNames: LegacyTable = {
  startChannel: legacy.rename('channel'),
  constrainedBy: digitalConstrainedBy,
};

/**
 * `history` holds the applied drive directions (on = opening), as the constraints read them;
 * `driven` the bridge last driven, to stop its motor when the valve moves or goes.
 */
interface ValveRuntime extends Driven<DigitalStateName>, SwitchTiming {
  driven: DrivenOutput | null;
  /** Since when the end switches are waited for at a start (null: read, or not waiting). */
  unreadSince: number | null;
  /** Driven without its end switches read: since when, and which way (null: they read). */
  blind: { since: number; opening: boolean } | null;
}

export const MotorValve = defineBlock<typeof fields, ValveRuntime>({
  type: 'MotorValve',
  role: 'output',
  fields,
  legacy: legacyNames,
  implements: ['ActuatorDigitalInterface', 'DigitalInterface', 'ClaimableInterface', 'IoClaimerInterface'],
  channelVia: 'DS2408Interface',
  description: 'A motorised valve on a DS2408 valve board, with its end switches read back',
  init: () => ({
    request: null,
    history: [],
    wanted: null,
    wantSince: 0,
    driven: null,
    unreadSince: null,
    blind: null,
  }),
  onWrite: returnToStoredOnPatch('storedState'),
  onDelete(block, ctx) {
    // The motor stops (both bridge inputs released) and the channel is let go, once the delete is
    // committed, on the board as it is now (it may go later in the same batch; one deleted before
    // is not reached, and letting it go switched its latches off already).
    const stop = stopping(block, ctx, null);
    ctx.afterCommit(() => {
      stop?.();
      ctx.releaseChannels(block);
    });
  },
  update(block, ctx) {
    const d = block.data;
    const s = block.state;
    const now = ctx.now;
    d.desiredState = desired(block, d.storedState);
    const want = isActive(d.desiredState);
    const c = d.channel ?? 0;
    const { io } = claimOwnChannel(block, ctx);
    // Moved to another start channel or board, or unlinked: the motor it drove stops (and one
    // driven blind there counts afresh on the new bridge).
    if (s.driven && (s.driven.arrayId !== d.hwDevice || s.driven.channel !== c)) s.blind = null;
    stopping(block, ctx, io ? { arrayId: d.hwDevice!, channel: c } : null)?.();
    if (!io) {
      d.state = null;
      d.valveState = null;
      s.blind = null;
      return now + INTERVAL_MS;
    }
    if (s.history.length === 0) {
      // No direction held yet (a start, a new valve, a backup load): the one the end switches
      // show, so the constraints do not drive an open valve closed after a restart (delayedOn
      // counting from the start); mid-travel, the wanted one. It is taken as held since long
      // ago, as a valve at its end stop has been: minOn (open) and minOff (closed) are met, so
      // a valve told to move while control was off or just before a stop moves at once, as it
      // would running. Until the switches are read the motor is stopped (a DS2408 keeps its
      // latches: a crash may have left it driving either way), for FIRST_READ_WAIT_MS: a board
      // whose reads keep failing then has the valve driven toward what is stored, the direction
      // held counted as closing since now, as a DigitalActuator's output is counted off (closing
      // is the valve's inactive side; a minOff or delayedOn then delays opening). The valve's
      // own end stop halts it, as it does running, and its motor is stopped VALVE_BLIND_DRIVE_MS
      // later (below); its state stays unknown until a read.
      const closed = io.read(c);
      const open = io.read(c + 1);
      if (closed === null || open === null) {
        const retry = awaitFirstRead(s, now, INTERVAL_MS);
        if (retry !== null) {
          io.write(c + 2, false);
          io.write(c + 3, false);
          s.driven = { arrayId: d.hwDevice!, channel: c, invert: false };
          d.state = null;
          d.valveState = null;
          return retry;
        }
        record(s.history, now, false);
      } else {
        record(s.history, Number.NEGATIVE_INFINITY, open !== closed ? open : want);
      }
      s.unreadSince = null;
    }
    const noMutex = () => ({ granted: false, wait: MUTEX_RETRY_MS });
    const { on: opening, retryMs } = constrainedSwitch(s, d.constraints, want, now, noMutex, INTERVAL_MS);
    const closed = io.read(c);
    const open = io.read(c + 1);
    const unread = closed === null || open === null;
    // End switches not read (the board's reads failing, running or since the start): the valve
    // still goes where it is told, but its motor is driven one way for VALVE_BLIND_DRIVE_MS at
    // most, from when the reads were lost or the direction changed; then it is stopped. A read
    // drives it toward what is desired again at once.
    if (!unread) s.blind = null;
    else if (s.blind === null || s.blind.opening !== opening) s.blind = { since: now, opening };
    const blindUntil = s.blind ? s.blind.since + VALVE_BLIND_DRIVE_MS : Number.POSITIVE_INFINITY;
    const drive = now < blindUntil;
    io.write(c + 2, drive && !opening);
    io.write(c + 3, drive && opening);
    s.driven = { arrayId: d.hwDevice!, channel: c, invert: false };
    d.valveState = unread ? null : valveState(closed, open, opening ? 1 : -1);
    d.state =
      d.valveState === null
        ? null
        : d.valveState === 'VALVE_OPEN'
          ? 'STATE_ACTIVE'
          : d.valveState === 'VALVE_CLOSED'
            ? 'STATE_INACTIVE'
            : 'STATE_UNKNOWN';
    return drive ? Math.min(now + retryMs, blindUntil) : now + retryMs;
  },
});

/**
 * When the valve no longer drives the bridge it drove last (its start channel or board changed,
 * or it is being deleted): both inputs of that bridge released, so its motor stops where it is,
 * unless another valve names that bridge now (it is woken to drive it in this tick). The board
 * is resolved now; null: nothing to stop.
 */
function stopping(
  block: AnyBlock,
  ctx: UpdateContext,
  current: { arrayId: string; channel: number } | null,
): (() => void) | null {
  const s = block.state as ValveRuntime;
  const old = s.driven;
  if (!old || (current && current.arrayId === old.arrayId && current.channel === old.channel)) return null;
  // Another valve took that bridge over in the same change (two valves swapping start channels):
  // it is that valve's to drive, now, in this tick; stopping it would cut its motor until then.
  const taker = ctx
    .referrers(old.arrayId)
    .find(
      (b) => b !== block && b.def === block.def && b.data.hwDevice === old.arrayId && b.data.channel === old.channel,
    );
  if (taker) {
    ctx.wake(taker);
    return null;
  }
  const io = drivenIo(ctx, old);
  return () => {
    io?.write(old.channel + 2, false);
    io?.write(old.channel + 3, false);
    s.driven = null;
  };
}

/** The valve's state from its end switches (true = reached) and the drive direction. */
export function valveState(closed: boolean, open: boolean, drive: -1 | 0 | 1): ValveStateName {
  if (closed && open) return 'VALVE_UNKNOWN';
  if (open) return drive < 0 ? 'VALVE_CLOSING' : 'VALVE_OPEN';
  if (closed) return drive > 0 ? 'VALVE_OPENING' : 'VALVE_CLOSED';
  if (drive > 0) return 'VALVE_OPENING';
  if (drive < 0) return 'VALVE_CLOSING';
  return 'VALVE_HALF_OPEN_IDLE';
}
