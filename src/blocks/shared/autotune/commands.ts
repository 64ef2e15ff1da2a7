// What the brewer writes to a PID's tuning (`tuning.command`): START, STOP, APPLY, DISCARD, UNDO.
// The check refuses what cannot be done, naming why (422 over REST, a logged refusal over MQTT);
// the write hook does the rest. A result's gains go into the PID (and its pair) only on APPLY,
// and the gains they replace are kept for UNDO, across restarts.
import type { ValidationIssue } from '../../../codec/partial.js';
import type { Linked, Resolve } from '../../../runtime/interfaces.js';
import type { CheckContext, Data, UpdateContext } from '../../../runtime/types.js';
import { rescaleIntegral, type PidParams } from '../pid-math.js';
import { settingDue } from '../pipeline.js';
import { tuningChain, type Look } from './chain.js';
import type { TuningData } from './fields.js';
import { setupChange } from './setup.js';
import { abort } from './ending.js';
import type { PidData, TunedPid } from './pid-state.js';

import { delta, round } from './words.js';
const PATH = 'data.tuning.command';
/** Settings a run takes at its start (`band` and `maxDuration` are read all along). */
const FIXED_WHILE_RUNNING = ['amplitude', 'hysteresis', 'cycles', 'maxOutput', 'pairId'] as const;
/** The band a START needs, in amplitudes. */
export const BAND_PER_AMPLITUDE = 2;

/** Why the command in `data` (the PID as the write leaves it) cannot be carried out; none when it can. */
export function tuningCommandIssues(data: Data, resolve: Resolve, check: CheckContext): ValidationIssue[] {
  const given = (data as { tuning?: Partial<TuningData> }).tuning;
  const command = given?.command ?? 'NONE';
  const self = check.self as unknown as TunedPid | undefined;
  const now = self?.data.tuning;
  if (now?.state === 'RUNNING' && command === 'START')
    return [{ path: PATH, message: 'already running: STOP it first to start again (with other settings, say)' }];
  if (now?.state === 'RUNNING' && given) {
    // A client that writes the whole block back (the Brewblox UI, in °F, say) sends the same
    // settings, give or take the last bits of a unit conversion: that is no change.
    const same = (a: unknown, b: unknown) =>
      a === b || (typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)));
    const changed = FIXED_WHILE_RUNNING.filter((k) => given[k] !== undefined && !same(given[k], now[k]));
    if (changed.length)
      return changed.map((k) => ({
        path: `data.tuning.${k}`,
        message: `the running tuning took ${k} ${JSON.stringify(now[k])} at its start; STOP it first to change it`,
      }));
  }
  if (command === 'NONE') return [];
  if (!self) return [{ path: PATH, message: `create the PID first, then write ${command}` }];
  const state = self.data.tuning.state;
  const refuse = (message: string) => [{ path: PATH, message }];
  switch (command) {
    case 'START': {
      // The PID as it will be: the new writable data with its current read-only values.
      const view = {
        ...self,
        data: { ...(data as unknown as PidData), tuning: { ...self.data.tuning, ...given } },
      } as unknown as Linked<'Pid'>;
      const chain = tuningChain(view, { resolve, referrers: check.referrers });
      if (typeof chain === 'string') return refuse(`cannot start: ${chain}`);
      const off = chain.input.data.value! - settingDue(chain.input)!;
      const band = view.data.tuning.band ?? 0;
      const amplitude = view.data.tuning.amplitude ?? 0;
      const hysteresis = view.data.tuning.hysteresis ?? 0;
      const u = check.units;
      if (hysteresis >= amplitude)
        return refuse(
          `cannot start: the hysteresis (${delta(hysteresis, u)}) must be below the amplitude (${delta(amplitude, u)}): the relay switches only past it, so the swing could not stay within the amplitude`,
        );
      // The first swings, at full output, go past the amplitude before the levels adapt.
      if (band < BAND_PER_AMPLITUDE * amplitude)
        return refuse(
          `cannot start: the band (${delta(band, u)}) must be at least ${BAND_PER_AMPLITUDE} times the amplitude (${delta(amplitude, u)}), or the first swings end the tuning; raise band or lower amplitude`,
        );
      if (Math.abs(off) > band)
        return refuse(
          `cannot start: the temperature is ${delta(Math.abs(off), u)} from the setting, outside the band (${delta(band, u)}); let it settle first`,
        );
      return [];
    }
    case 'APPLY':
    case 'DISCARD':
      if (state !== 'PROPOSED')
        return refuse(`nothing to ${command.toLowerCase()}: the tuning is ${state}, no result waits`);
      // A stored result that did not load again (records.ts leaves such a value out whole).
      if (command === 'APPLY' && self.data.tuning.result.kp === null)
        return refuse(
          'nothing to apply: the proposed gains could not be read back after a restart; DISCARD and tune again',
        );
      return command === 'APPLY'
        ? measuredOnAnother(self, data as unknown as PidData, { resolve, referrers: check.referrers })
        : [];
    case 'STOP': {
      const by = self.data.tuning.tunedBy;
      if (by) return refuse(`${self.id} is being tuned as the pair of ${by}: STOP it there`);
      return state === 'RUNNING' ? [] : refuse(`nothing to stop: the tuning is ${state}`);
    }
    case 'UNDO':
      // The gains the last APPLY replaced stay undoable until an UNDO or the next APPLY, whatever
      // tunings were started, stopped or discarded since.
      if (state === 'RUNNING' || state === 'PROPOSED')
        return refuse(
          `not while the tuning is ${state}: ${state === 'RUNNING' ? 'STOP it' : 'APPLY or DISCARD the result'} first`,
        );
      if (self.data.tuning.previous.kp !== null) return [];
      return refuse(
        state === 'APPLIED'
          ? 'nothing to undo: the previous gains could not be read back after a restart'
          : `nothing to undo: no applied result (the tuning is ${state})`,
      );
    default:
      return [];
  }
}

const signWord = (v: number) => (v > 0 ? 'positive' : 'negative');

/**
 * Why a result cannot be applied to the PID as the write leaves it (`data`): it was measured on
 * another setup. kp of the PID or of its pair has the other sign (turned round: the gains would
 * drive it the wrong way), or an input, output or pair was relinked, or a timing of the chain the
 * gains depend on (PWM period, minimum and delay times, mutex) was edited (setup.ts).
 */
function measuredOnAnother(self: TunedPid, data: PidData, look: Look): ValidationIssue[] {
  const r = self.data.tuning.result;
  const refuse = (message: string) => [{ path: PATH, message: `cannot apply: ${message}; DISCARD and tune again` }];
  const pair =
    r.pairNid !== null && data.inputId
      ? look.referrers(data.inputId).find((b) => b.nid === r.pairNid && b.def.type === 'Pid')
      : undefined;
  const sides: Array<[string, number | null, number | null]> = [
    [self.id, r.kp, data.kp],
    [`its pair ${pair?.id}`, r.pairKp, pair ? (pair.data as { kp: number | null }).kp : null],
  ];
  for (const [who, measured, now] of sides)
    if (measured && now && Math.sign(measured) !== Math.sign(now))
      return refuse(`the result was measured with kp of ${who} ${signWord(measured)}, and it is now ${signWord(now)}`);
  const changed = setupChange(r, self.id, data as never, look);
  return changed ? refuse(changed) : [];
}

/** Carry out the command of a write (from the PID's write hook); the command reads back as NONE. */
export function runTuningCommand(block: TunedPid, ctx: UpdateContext): void {
  const command = block.data.tuning.command;
  block.data.tuning.command = 'NONE';
  if (command === 'START') startTuning(block, ctx);
  else if (command === 'STOP') stopTuning(block, ctx);
  else if (command === 'APPLY') applyTuning(block, ctx);
  else if (command === 'DISCARD') discardTuning(block);
  else if (command === 'UNDO') undoTuning(block, ctx);
}

/** START (from the write hook): a fresh run begins at the forced update that follows. */
function startTuning(block: TunedPid, ctx: UpdateContext): void {
  const tu = block.data.tuning;
  if (tu.state === 'RUNNING') return;
  tu.state = 'RUNNING';
  tu.message = 'starting';
  tu.startedAt = ctx.wall === null ? null : Math.floor(ctx.wall / 1000);
  tu.elapsed = 0;
  tu.setting = null;
  tu.cycle = 0;
  tu.timeLeft = null;
  tu.result = emptyResult();
  block.state.tuning.run = null;
  block.state.tuning.starting = true;
}

function stopTuning(block: TunedPid, ctx: UpdateContext): void {
  if (block.data.tuning.state === 'RUNNING') abort(block, ctx, 'stopped by the user');
}

type Gains = PidParams;
const gainsOf = (d: PidData): Gains => ({ kp: d.kp ?? 0, ti: d.ti ?? 0, td: d.td ?? 0 });

/** The pair a result or undo is for, found by its nid among the PIDs on the same setpoint. */
function pairByNid(block: TunedPid, ctx: UpdateContext, nid: number | null): TunedPid | null {
  if (nid === null || !block.data.inputId) return null;
  const b = ctx.referrers(block.data.inputId).find((x) => x.nid === nid && x.def.type === 'Pid');
  return b ? (b as unknown as TunedPid) : null;
}

function setGains(pid: TunedPid, ctx: UpdateContext, g: Gains, persist: boolean): void {
  const before = gainsOf(pid.data);
  if (persist) {
    // Another block than the one written: undone with the write when its batch fails.
    const integral = pid.state.integral;
    ctx.changing(pid as never);
    ctx.undoable(() => {
      pid.state.integral = integral;
    });
  }
  pid.data.kp = g.kp;
  pid.data.ti = g.ti;
  pid.data.td = g.td;
  if (persist) {
    // The block's own write hook rescales its integral; a pair's is rescaled here.
    pid.state.integral = rescaleIntegral(pid.state.integral, before, g);
    ctx.persist(pid);
    ctx.wake(pid);
  }
}

/** APPLY: the proposed gains go in, the replaced ones are kept for UNDO. */
function applyTuning(block: TunedPid, ctx: UpdateContext): void {
  const tu = block.data.tuning;
  const r = tu.result;
  if (tu.state !== 'PROPOSED' || r.kp === null) return;
  const pair = pairByNid(block, ctx, r.pairNid);
  const mine = gainsOf(block.data);
  const theirs = pair ? gainsOf(pair.data) : null;
  tu.previous = {
    kp: mine.kp,
    ti: mine.ti,
    td: mine.td,
    pairKp: theirs?.kp ?? null,
    pairTi: theirs?.ti ?? null,
    pairTd: theirs?.td ?? null,
    pair: pair?.id ?? '',
    pairNid: pair?.nid ?? null,
  };
  setGains(block, ctx, { kp: r.kp, ti: r.ti ?? 0, td: r.td ?? 0 }, false);
  if (pair && r.pairKp !== null) setGains(pair, ctx, { kp: r.pairKp, ti: r.pairTi ?? 0, td: r.pairTd ?? 0 }, true);
  tu.state = 'APPLIED';
  tu.message =
    r.pairNid !== null && !pair
      ? `applied to ${block.id}; its pair ${r.pair} is gone, so its gains were not applied`
      : `applied${pair ? ` to ${block.id} and ${pair.id}` : ''}; UNDO puts the previous gains back`;
}

function discardTuning(block: TunedPid): void {
  const tu = block.data.tuning;
  if (tu.state !== 'PROPOSED') return;
  tu.state = 'IDLE';
  tu.message = 'result discarded; the gains were not changed';
}

/** UNDO: the gains an APPLY replaced come back (the pair's too). */
function undoTuning(block: TunedPid, ctx: UpdateContext): void {
  const tu = block.data.tuning;
  const p = tu.previous;
  if (tu.state === 'RUNNING' || tu.state === 'PROPOSED' || p.kp === null) return;
  const pair = pairByNid(block, ctx, p.pairNid);
  const lost = replacedGains(block, pair);
  setGains(block, ctx, { kp: p.kp, ti: p.ti ?? 0, td: p.td ?? 0 }, false);
  if (pair && p.pairKp !== null) setGains(pair, ctx, { kp: p.pairKp, ti: p.pairTi ?? 0, td: p.pairTd ?? 0 }, true);
  tu.state = 'IDLE';
  tu.message = `undone: back to kp ${round(p.kp, 3)}, ti ${Math.round(p.ti ?? 0)} s, td ${Math.round(p.td ?? 0)} s${pair ? ` (and ${pair.id}'s)` : ''}${lost}`;
  // Undone once: the gains in use are those, there is nothing left to undo.
  tu.previous = noGains();
}

/**
 * The gains an UNDO is about to replace, in words, where they are not the ones the APPLY wrote:
 * gains edited by hand since. UNDO still puts the old ones back (that is what it is asked), but
 * says what it replaced. Once a later tuning has cleared the result, what the APPLY wrote is no
 * longer known: the gains replaced are then named whatever they are.
 */
function replacedGains(block: TunedPid, pair: TunedPid | null): string {
  const tu = block.data.tuning;
  const r = tu.state === 'APPLIED' && tu.result.kp !== null ? tu.result : null;
  const same = (a: number, b: number | null) => b !== null && Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
  const edited = (pid: TunedPid, applied: [number | null, number | null, number | null] | null) => {
    const g = gainsOf(pid.data);
    if (applied && same(g.kp, applied[0]) && same(g.ti, applied[1]) && same(g.td, applied[2])) return [];
    return [`${pid.id} kp ${round(g.kp, 3)}, ti ${Math.round(g.ti)} s, td ${Math.round(g.td)} s`];
  };
  const lost = [
    ...edited(block, r && [r.kp, r.ti, r.td]),
    ...(pair && tu.previous.pairKp !== null ? edited(pair, r && [r.pairKp, r.pairTi, r.pairTd]) : []),
  ];
  if (!lost.length) return '';
  return `; the gains it replaced${r ? ', changed by hand since the APPLY' : ''}: ${lost.join('; ')}`;
}

const noGains = (): TuningData['previous'] => ({
  kp: null,
  ti: null,
  td: null,
  pairKp: null,
  pairTi: null,
  pairTd: null,
  pair: '',
  pairNid: null,
});

function emptyResult(): TuningData['result'] {
  return {
    ...noGains(),
    period: null,
    amplitude: null,
    gain: null,
    pairGain: null,
    timeConstant: null,
    lag: null,
    deadTime: null,
    fit: null,
    settling: null,
    overshoot: null,
    shortestRun: null,
    rule: '',
    inputNid: null,
    outputNid: null,
    pairOutputNid: null,
    setup: '',
  };
}
