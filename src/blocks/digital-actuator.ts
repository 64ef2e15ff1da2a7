// DigitalActuator: drives one IoArray channel on or off, optionally inverted, through the
// digital constraints (minOff, minOn, delayedOn, delayedOff, mutexed). It keeps a short history
// of its transitions, which the constraints and a driving PWM read. Soft start (shared/soft-start.ts)
// ramps the output on through fast PWM where the channel can; elsewhere it switches at once.
import { f, type DataOf } from '../codec/fields.js';
import type { Linked } from '../runtime/interfaces.js';
import { digitalConstrainedBy, type LegacyTable } from '../codec/legacy.js';
import { HARDWARE_POLL_MS } from '../runtime/loop.js';
import { defineBlock, type AnyBlock, type UpdateContext } from '../runtime/types.js';
import { claimOwnChannel, drivenIo, outputChannelIssues, type DrivenOutput } from './shared/channel.js';
import {
  awaitFirstRead,
  constrainedSwitch,
  record,
  type SwitchTiming,
  type Transition,
} from './shared/digital-constraints.js';
import type { DigitalStateName } from './shared/enums.js';
import { claimableFields, digitalConstraintsField, digitalState, digitalStateOrNull } from './shared/fields.js';
import { refreshHold, tryLock, unlock, type MutexToken } from './shared/mutex-token.js';
import { desired, type Driven, returnToStoredOnPatch } from './shared/pipeline.js';
import { canPwm, DutyRamp, RAMP_INTERVAL_MS, softStartFields, transitionSeconds } from './shared/soft-start.js';

const MAX_INTERVAL_MS = 1000;
/** PWM frequency of the soft-start ramp (every PWM-capable channel has 100 Hz). */
const SOFT_START_HZ = 100;

const fields = {
  hwDevice: f.link('IoArrayInterface', { stored: true, drives: true }),
  channel: f.number({ stored: true, integer: true, min: 0, max: 64, description: '1-based channel; 0 = none' }),
  storedState: digitalState({ logged: true, stored: true }),
  desiredState: digitalStateOrNull({ readonly: true, logged: true }),
  state: digitalStateOrNull({
    readonly: true,
    logged: true,
    description: 'the channel state read back; null when unknown',
  }),
  invert: f.bool({ stored: true, description: 'active-low output' }),
  constraints: digitalConstraintsField,
  ...softStartFields,
  ...claimableFields,
};

type DigitalActuatorData = DataOf<typeof fields>;

/** `history` starts with the state found at the first update. */
export interface DigitalActuatorState extends Driven<DigitalStateName>, SwitchTiming {
  /** The mutex whose token this actuator may hold, to give it back when relinked. */
  mutexId: string | null;
  /** The output last written, so that it is switched off when the actuator moves or goes. */
  driven: DrivenOutput | null;
  /** Soft start: the duty ramping up after switching on. */
  ramp: DutyRamp;
  /** When it first waited for its channel to be read at a start (null: not waiting). */
  unreadSince: number | null;
  /** When it first found (or, unread, wrote) its output; null before. */
  foundAt: number | null;
}

export const isActive = (s: DigitalStateName | null): boolean => s === 'STATE_ACTIVE';

const legacyNames: LegacyTable = {
  constrainedBy: digitalConstrainedBy,
};

export const DigitalActuator = defineBlock<typeof fields, DigitalActuatorState>({
  type: 'DigitalActuator',
  role: 'output',
  homeAssistant: [{ component: 'switch', key: 'state', field: 'state', kind: 'digital', write: 'storedState' }],
  fields,
  legacy: legacyNames,
  implements: ['ActuatorDigitalInterface', 'DigitalInterface', 'ClaimableInterface', 'IoClaimerInterface'],
  channelVia: 'IoArrayInterface',
  description: 'A digital output on one IoArray channel, with timing and mutex constraints',
  init: () => ({
    request: null,
    history: [],
    wanted: null,
    wantSince: 0,
    mutexId: null,
    driven: null,
    ramp: new DutyRamp(),
    unreadSince: null,
    foundAt: null,
  }),
  checkData: outputChannelIssues,
  onWrite: returnToStoredOnPatch('storedState'),
  onDelete(block, ctx) {
    // Its output off, its channel and mutex let go: once its batch is committed, on the IO block
    // and the mutex as they are now (either may go later in the same batch).
    const off = switchingOff(block, ctx, null);
    const mutex = ctx.resolve(block.state.mutexId, 'MutexInterface');
    ctx.afterCommit(() => {
      off?.();
      ctx.releaseChannels(block);
      if (mutex) unlock(mutex.state, block.id);
    });
  },
  update(block, ctx) {
    const d = block.data;
    const s = block.state;
    const now = ctx.now;
    d.desiredState = desired(block, d.storedState);
    const want = isActive(d.desiredState);
    const { array: claimed, io } = claimOwnChannel(block, ctx);
    switchOffPrevious(block, ctx, io ? { arrayId: d.hwDevice!, channel: d.channel! } : null);
    const mutexed = d.constraints.mutexed;
    const mutex = mutexed?.enabled ? ctx.resolve(mutexed.mutexId, 'MutexInterface') : null;
    if (s.mutexId !== null && s.mutexId !== mutex?.id) {
      const old = ctx.resolve(s.mutexId, 'MutexInterface');
      if (old) unlock(old.state, block.id);
      s.mutexId = null;
    }
    const token = mutex ? mutex.state : null;
    const holderValid = (holder: string) =>
      mutex !== null && holdsMutexConstraint(ctx.resolve(holder, 'ActuatorDigitalInterface'), mutex.id);
    // Written without being read (at the end of the wait below): it may have been on until now.
    let writtenUnread = false;
    if (s.history.length === 0) {
      const pin = io ? io.read(d.channel!) : null;
      // The output as it is found, not as it is assumed: at a start a polled board (1-Wire, I2C)
      // is not read yet, and a relay a crash left on (the board kept its power) taken as off
      // since now would be written off, a compressor then waiting out its minimum off time. Nothing
      // is written until it reads, for FIRST_READ_WAIT_MS: a module whose reads keep failing then
      // has what is stored written, the output counted as off since now (off is always safe, and
      // a compressor stored on waits out its minimum off time). On a mutex, written unread, it
      // holds the token as one found on that switches off does (see below).
      // Another actuator on the mutex holds it and is on: this output may not be on beside it
      // whatever it was left as, so it is written off at once rather than after the wait.
      const otherOn =
        token !== null &&
        token.holder !== null &&
        token.holder !== block.id &&
        token.holderOn &&
        holderValid(token.holder);
      const retry = io && pin === null && !otherOn ? awaitFirstRead(s, now, HARDWARE_POLL_MS) : null;
      if (retry !== null) {
        d.state = null;
        return retry;
      }
      s.unreadSince = null;
      s.foundAt = now;
      writtenUnread = io !== null && pin === null;
      const foundOn = pin !== null && pin !== d.invert;
      // Found on (a crash left it so): on since long ago, and what is stored wanted as long, for
      // how long is not known. Its minimum on time and delayed off are met, so an actuator stored
      // off switches it off at once. Found off, it is off since now: minOff still protects a
      // compressor that may have stopped just before the crash.
      record(s.history, foundOn ? Number.NEGATIVE_INFINITY : now, foundOn);
      if (foundOn) {
        s.wanted = want;
        s.wantSince = Number.NEGATIVE_INFINITY;
      }
    }
    // Driving no channel any more (set to none, or to one another block holds; its board's block
    // gone): the output it drove was switched off above, so it is off from now, and a mutex it
    // held on goes after its hold time, as after a switch-off; the other side does not wait for
    // ever. A board that only stops answering still gives its channel: its relay may be on, and
    // the mutex is kept.
    if (!io && s.history[s.history.length - 1]!.on) record(s.history, now, false);
    // The module switched the output off by itself (its power dipped): that counts as switching
    // off, for minOff. An inverted output it switched on that way is written back at once. A loss
    // before this actuator found its output (a GPIO line keeps the time of its last safe state)
    // is not: the output was found as it is since.
    const lostAt = io && !d.invert ? (io.lostAt?.(d.channel!) ?? null) : null;
    const last = s.history[s.history.length - 1]!;
    if (lostAt !== null && last.on && lostAt > Math.max(last.t, s.foundAt ?? Number.NEGATIVE_INFINITY))
      record(s.history, Math.min(lostAt, now), false);
    // An unresolvable mutex blocks switching on; retry every second. A free token goes first to
    // an actuator on the mutex that is on already (a new Mutex block, or a backup's blocks, find
    // the outputs as they are), so a second one is not switched on beside it.
    // Another actuator on it whose output is not read yet (its module not polled since the start)
    // may be on: nobody takes the token until it is known.
    const lock = () => {
      if (!token) return { granted: false, wait: MAX_INTERVAL_MS };
      if (token.holder === null || !holderValid(token.holder)) {
        if (adoptActiveHolder(token, mutex!.id, block, ctx, now) === 'unknown')
          return { granted: false, wait: HARDWARE_POLL_MS };
      }
      return tryLock(token, block.id, now, holderValid);
    };
    const wasOn = s.history[s.history.length - 1]!.on;
    const switched = constrainedSwitch(s, d.constraints, want, now, lock, MAX_INTERVAL_MS, io !== null);
    let on = switched.on;
    // A driver that waited for this switch (a PWM held up by a constraint) hears of it at once.
    if (s.wantSince < now && s.history[s.history.length - 1]!.t === now) {
      const driver = d.claimedBy ? ctx.resolve(d.claimedBy, 'Any') : null;
      if (driver) ctx.wake(driver);
    }
    let next = switched.retryMs;
    if (token && mutex) {
      // An actuator that is on must own the token. Outside a start it does; one found on (after a
      // crash) takes it, also from a holder that is off and holds it for its extra time (this one
      // runs already), but not from one that is on: it goes off, so at most one is on. One found
      // on that switches off at once takes the token as if it had held it, so its hold time keeps
      // another from starting right after it stopped, unless another is on; so does one written
      // off without ever being read (a crash may have left it on until then).
      if (on && token.holder !== block.id) {
        if (token.holder !== null && holderValid(token.holder) && token.holderOn) {
          on = false;
          record(s.history, now, false);
        } else token.holder = block.id;
      } else if ((wasOn || writtenUnread) && !on && token.holder !== block.id) {
        if (token.holder === null || !holderValid(token.holder)) adoptActiveHolder(token, mutex.id, block, ctx, now);
        tryLock(token, block.id, now, holderValid);
      }
      const offSince = on ? now : s.history[s.history.length - 1]!.t;
      const holdMs = (mutexed!.extraHoldTime ?? 0) * 1000;
      refreshHold(token, block.id, on, offSince, holdMs, now);
      if (token.holder === block.id) {
        s.mutexId = mutex.id;
        if (!on) next = Math.min(next, Math.max(1, offSince + holdMs - now));
      } else if (s.mutexId === mutex.id) {
        s.mutexId = null;
      }
    }
    if (mutexed) mutexed.hasLock = token !== null && token.holder === block.id;
    const array = io ? claimed : null;
    const rampS = transitionSeconds(d, canPwm(array, d.channel, io));
    d.transitionDurationValue = rampS;
    if (io) {
      if (on && rampS > 0 && s.ramp.ramping(100)) {
        // Soft start: ramp the duty up; switching off is immediate.
        const duty = s.ramp.step(now, 100, rampS * 1000);
        io.writeDuty!(d.channel!, d.invert ? 100 - duty : duty, SOFT_START_HZ);
        if (s.ramp.ramping(100)) next = Math.min(next, RAMP_INTERVAL_MS);
      } else {
        s.ramp.set(now, on ? 100 : 0);
        io.write(d.channel!, on !== d.invert);
      }
      s.driven = { arrayId: d.hwDevice!, channel: d.channel!, invert: d.invert };
      const pin = io.read(d.channel!);
      d.state = pin === null ? null : pin !== d.invert ? 'STATE_ACTIVE' : 'STATE_INACTIVE';
    } else {
      d.state = null;
    }
    return now + next;
  },
});

/**
 * When the actuator no longer drives the output it drove last (its channel or IO device changed,
 * or it is being deleted), leave that output in its inactive state instead of wherever it was.
 */
function switchOffPrevious(
  block: AnyBlock,
  ctx: UpdateContext,
  current: { arrayId: string; channel: number } | null,
): void {
  switchingOff(block, ctx, current)?.();
}

/** The switching off of switchOffPrevious, with the output resolved now; null: nothing to switch off. */
function switchingOff(
  block: AnyBlock,
  ctx: UpdateContext,
  current: { arrayId: string; channel: number } | null,
): (() => void) | null {
  const state = block.state as DigitalActuatorState;
  const old = state.driven;
  if (!old || (current && current.arrayId === old.arrayId && current.channel === old.channel)) return null;
  const io = drivenIo(ctx, old);
  return () => {
    io?.write(old.channel, old.invert);
    state.driven = null;
  };
}

/**
 * Give a free token to another actuator on the mutex whose output is on, with its hold time. Its
 * applied state is its history; one that has not updated yet, or waits for its channel to be read
 * (just created or loaded) has none, and its channel is read as it will read it. 'unknown': none
 * is on, but one's channel is not read yet.
 */
function adoptActiveHolder(
  token: MutexToken,
  mutexId: string,
  self: AnyBlock,
  ctx: UpdateContext,
  now: number,
): 'adopted' | 'unknown' | null {
  let unknown = false;
  for (const other of ctx.referrers(mutexId)) {
    if (other === self || other.def.type !== 'DigitalActuator') continue;
    const d = other.data as DigitalActuatorData;
    if (!holdsMutexConstraint(other as Linked<'ActuatorDigitalInterface'>, mutexId)) continue;
    const history = historyOf(other);
    const last = history[history.length - 1];
    const io =
      last || d.hwDevice === null || !d.channel
        ? null
        : drivenIo(ctx, { arrayId: d.hwDevice, channel: d.channel, invert: d.invert });
    const pin = io?.read(d.channel!) ?? null;
    // Its module not read yet: it may be on (a crash left it so), or off.
    if (io && pin === null) unknown = true;
    const on = last ? last.on : pin !== null && pin !== d.invert;
    if (!on) continue;
    token.holder = other.id;
    token.holderOn = true;
    token.offSince = now;
    token.holdMs = (d.constraints.mutexed?.extraHoldTime ?? 0) * 1000;
    return 'adopted';
  }
  return unknown ? 'unknown' : null;
}

/** True when `block` is a digital actuator with an enabled mutexed constraint on `mutexId`. */
export function holdsMutexConstraint(block: Linked<'ActuatorDigitalInterface'> | null, mutexId: string): boolean {
  const c = block?.data.constraints?.mutexed;
  return !!c && c.enabled && c.mutexId === mutexId;
}

/** The applied state history of a digital actuator block (empty before its first update). */
export function historyOf(block: AnyBlock): Transition[] {
  return (block.state as Partial<DigitalActuatorState> | undefined)?.history ?? [];
}
