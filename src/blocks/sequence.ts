// Sequence: a small script of instructions run on the controller (reference §5.6, §6.9).
// `instructions` are text lines (shared/sequence-syntax.ts); a line that does not parse is
// kept as written, and the sequence reports it (`error` INVALID_ARGUMENT with the line and
// column in `errorInstruction`/`errorPos`/`errorMessage`) and runs nothing until it is fixed.
// SET instructions chain within one update (a WAIT right after a SET is first checked on the
// next tick, once the changed blocks have updated); a WAIT is re-checked every 100 ms; RESTART
// pauses 1 s; an error retries the same instruction until the cause is gone. Disabled, the
// sequence is PAUSED and the paused time does not count towards WAIT_DURATION. WAIT_UNTIL,
// START_PROFILE and WAIT_PROFILE need the wall clock (SYSTEM_TIME_NOT_AVAILABLE without it);
// WAIT_DURATION runs on the monotonic clock. Progress and the blocks it changed (a sequence it
// started too) are persisted once an instruction has been active for 60 s, and at END; whoever
// stores the sequence (its own checkpoint, a starter's, a write), the blocks the lines it passed
// changed are stored first (storedWith), so its stored progress is never ahead of their stored
// effects. A WAIT_DURATION's `elapsed` is stored
// every minute after that, so a restart resumes it with the time it had (as a profile resumes its
// place) instead of starting a long wait over. A rename of a block rewrites the lines that name it, as links
// follow a rename (renamed, below), and a delete lists them as it lists links left dangling (names).
import { f } from '../codec/fields.js';
import { legacy, type LegacyTable } from '../codec/legacy.js';
import { defineBlock, type AnyBlock, type Block, type UpdateContext } from '../runtime/types.js';
import { lineNames } from './shared/sequence-lines.js';
import { parseLines, renameInLines, storedLines, type ParsedLine } from './shared/sequence-program.js';
import { runInstruction, SequenceError, type SequenceErrorName } from './shared/sequence-steps.js';

export const SequenceStatus = {
  UNKNOWN: 0,
  DISABLED: 1,
  PAUSED: 2,
  NEXT: 3,
  WAITING: 4,
  END: 5,
  RESTART: 6,
  ERROR: 7,
} as const;

export const SequenceStoreMode = {
  AT_RESTORE_INSTRUCTION_RESTORE_ENABLED: 0,
  AT_RESTORE_INSTRUCTION_ALWAYS_ENABLED: 1,
  AT_RESTORE_INSTRUCTION_NEVER_ENABLED: 2,
  AT_FIRST_INSTRUCTION_RESTORE_ENABLED: 3,
  AT_FIRST_INSTRUCTION_ALWAYS_ENABLED: 4,
  AT_FIRST_INSTRUCTION_NEVER_ENABLED: 5,
} as const;

const WAIT_INTERVAL_MS = 100;
const RESTART_PAUSE_MS = 1000;
const IDLE_INTERVAL_MS = 1000;
const PERSIST_AFTER_MS = 60_000;
/** How often a running instruction's `elapsed` is stored: a restart counts at most this much again. */
const ELAPSED_STORE_MS = 60_000;

/** Room for the longest instruction naming the longest block id (200 characters, in quotes, each quote doubled). */
const INSTRUCTION_CHARS = 500;

const fields = {
  enabled: f.bool({ stored: true, logged: true, default: true }),
  instructions: f.array(f.string({ maxLength: INSTRUCTION_CHARS }), {
    stored: true,
    maxItems: 100,
    description: 'one instruction per line: OPCODE key=value, ... or # comment',
  }),
  variablesId: f.link('Variables', { stored: true }),
  overrideState: f.bool({ stored: true, description: 'true in a write: activeInstruction is taken from the write' }),
  activeInstruction: f.number({ stored: true, logged: true, integer: true, min: 0 }),
  storeMode: f.enum(SequenceStoreMode, {
    stored: true,
    description: 'where a restored sequence resumes, and whether it is enabled',
  }),
  status: f.enum(SequenceStatus, { readonly: true }),
  error: f.enum(SequenceError, { readonly: true }),
  elapsed: f.duration({
    readonly: true,
    stored: true,
    logged: true,
    default: 0,
    description: 'time in the active instruction, paused time excluded',
  }),
  errorInstruction: f.number({
    readonly: true,
    integer: true,
    description: 'index of the instruction the error is about',
  }),
  errorPos: f.number({ readonly: true, integer: true, description: 'column of a parse error in that instruction' }),
  errorMessage: f.string({ readonly: true, description: 'what is wrong, in words' }),
};

/** Older firmware timed the active instruction with these; `elapsed` replaced them. */
const legacyNames: LegacyTable = Object.fromEntries(
  ['activeInstructionStartedAt', 'disabledAt', 'disabledDuration'].map((n) => [
    n,
    legacy.ignore('older firmware: replaced by elapsed'),
  ]),
);

export interface SequenceState {
  lines: ParsedLine[];
  /** Monotonic start of the active instruction; null: not started yet. */
  startedAt: number | null;
  pausedMs: number;
  pausedSince: number | null;
  /** No instruction runs before this (after RESTART). */
  holdUntil: number;
  /** The active instruction's progress and changes have been persisted. */
  persisted: boolean;
  /** Whole ELAPSED_STORE_MS periods of `elapsed` when the block was last stored. */
  storedPeriods: number;
  /** Restored at its stored instruction: the first update takes up the stored `elapsed` (in place at init). */
  resume: boolean;
  changed: Set<AnyBlock>;
  /** Enabled flag and instruction as stored, before the store mode was applied at load. */
  restored: { enabled: boolean; activeInstruction: number | null };
}

type SequenceBlock = Block<typeof fields, SequenceState>;

export const Sequence = defineBlock<typeof fields, SequenceState>({
  type: 'Sequence',
  role: 'controller',
  fields,
  legacy: legacyNames,
  implements: ['EnablerInterface'],
  description: 'A script of instructions: set and wait for setpoints, outputs, profiles, times',
  init(block) {
    const d = block.data;
    const restored = { enabled: d.enabled, activeInstruction: d.activeInstruction };
    const mode = d.storeMode;
    // From the first instruction with its time at 0, as restartAt: the stored `elapsed` is the time
    // in the stored instruction. A backup load stores the block as this leaves it.
    if (mode.startsWith('AT_FIRST_INSTRUCTION')) {
      d.activeInstruction = 0;
      d.elapsed = 0;
    }
    if (mode.endsWith('ALWAYS_ENABLED')) d.enabled = true;
    if (mode.endsWith('NEVER_ENABLED')) d.enabled = false;
    const s: SequenceState = {
      lines: [],
      startedAt: null,
      pausedMs: 0,
      pausedSince: null,
      holdUntil: -Infinity,
      persisted: true,
      storedPeriods: 0,
      resume: mode.startsWith('AT_RESTORE_INSTRUCTION'),
      changed: new Set(),
      restored,
    };
    s.lines = parseLines(d.instructions);
    return s;
  },
  onWrite(block, info) {
    const d = block.data;
    const s = block.state;
    const previous = info.previous as { instructions?: string[]; activeInstruction?: number } | undefined;
    if (!previous) {
      // Created, not restored: the store mode applies at load only.
      d.enabled = s.restored.enabled;
      d.activeInstruction = s.restored.activeInstruction;
    }
    const oldLines = s.lines;
    s.lines = parseLines(d.instructions);
    d.instructions = storedLines(d.instructions, s.lines);
    const current = previous?.activeInstruction ?? d.activeInstruction ?? 0;
    if (d.overrideState) {
      d.overrideState = false;
      restartAt(block, d.activeInstruction ?? 0);
    } else if (previous) {
      // New instructions keep the position when the opcodes before it are unchanged.
      const same = (i: number) => oldLines[i]?.instruction?.op === s.lines[i]?.instruction?.op;
      const keep =
        Array.from({ length: Math.min(current + 1, s.lines.length) }, (_, i) => i).every(same) &&
        current <= s.lines.length;
      if (keep) d.activeInstruction = current;
      else restartAt(block, 0);
    }
  },
  // The lines that name it (sequence-program.ts), as a delete lists them.
  renamed(block, from, to) {
    const d = block.data;
    const s = block.state;
    const renamed = renameInLines(d.instructions, s.lines, from, to);
    if (!renamed) return null;
    const before = { instructions: d.instructions, lines: s.lines };
    d.instructions = renamed.instructions;
    s.lines = renamed.lines;
    return () => {
      d.instructions = before.instructions;
      s.lines = before.lines;
    };
  },
  // From the text, as the dashboard marks them (sequence-lines.ts): a line that does not parse
  // (a setting mistyped) names its block all the same.
  // The blocks the lines it passed changed, not stored yet: stored before the sequence, whoever
  // stores it (a starter's checkpoint, a write), as its own checkpoint does.
  storedWith(block, store) {
    const changed = block.state.changed;
    for (const b of [...changed]) {
      // Let go of first: a sequence among them that names this one back ends there.
      if (!changed.delete(b)) continue;
      try {
        store(b);
      } catch (e) {
        changed.add(b);
        throw e;
      }
    }
  },
  names(block) {
    return block.data.instructions.flatMap((text, i) =>
      lineNames(text).map(({ id }) => ({ id, field: `instructions.${i}` })),
    );
  },
  update(block, ctx) {
    const d = block.data;
    const s = block.state;
    const now = ctx.now;
    if (s.resume) {
      s.resume = false;
      const ms = (d.elapsed ?? 0) * 1000;
      if (ms > 0) {
        s.startedAt = now - ms;
        s.storedPeriods = Math.floor(ms / ELAPSED_STORE_MS);
      }
    }
    const bad = s.lines.findIndex((l) => l.error !== null);
    if (bad >= 0) {
      const e = s.lines[bad]!.error!;
      report(block, 'ERROR', 'INVALID_ARGUMENT', bad, e.pos, `instruction ${bad + 1}: ${e.message}`);
      return now + IDLE_INTERVAL_MS;
    }
    if (!d.enabled) {
      s.pausedSince ??= now;
      report(block, disabledStatus(block), 'NONE');
      d.elapsed = elapsedMs(s, now) / 1000;
      return now + IDLE_INTERVAL_MS;
    }
    if (s.pausedSince !== null) {
      s.pausedMs = s.startedAt === null ? 0 : s.pausedMs + now - s.pausedSince;
      s.pausedSince = null;
    }
    if (now < s.holdUntil) return s.holdUntil;
    s.startedAt ??= now;
    const variables = ctx.resolve(d.variablesId, 'Variables');
    let next = now + WAIT_INTERVAL_MS;
    let touched = 0;
    const changed = { add: (b: AnyBlock) => (s.changed.add(b), touched++) };
    // Each instruction runs at most once per update, so a sequence without WAITs cannot spin.
    for (let steps = 0; steps <= s.lines.length; steps++) {
      const index = d.activeInstruction ?? 0;
      const line = s.lines[index];
      if (!line) {
        report(block, 'END', 'NONE');
        // Once: `elapsed` goes on counting at END, and is not worth a write a second.
        if (!s.persisted) persistProgress(block, ctx);
        next = now + IDLE_INTERVAL_MS;
        break;
      }
      if (touched > 0 && line.instruction!.op.startsWith('WAIT')) {
        // Let the blocks just set update before a wait looks at them (next tick).
        report(block, 'WAITING', 'NONE');
        next = now + 1;
        break;
      }
      const result = runInstruction(line.instruction!, {
        ctx,
        self: block,
        variables,
        elapsedMs: elapsedMs(s, now),
        changed,
        startSequence: (target) => {
          restartAt(target as SequenceBlock, 0);
          ctx.wake(target);
          // Stored with this sequence's checkpoint, as the blocks its SET lines change: a kill
          // then finds both before the start or both after it, never this one past a WAIT_SEQUENCE
          // on a sequence still stored at the end of its last run. The target's own SET lines
          // passed by then are stored with it (storedWith).
          changed.add(target);
        },
      });
      if (result.kind === 'next') {
        report(block, 'NEXT', 'NONE');
        advance(block, index + 1, now);
        if (d.enabled) continue;
        // It disabled itself (DISABLE target=<itself>): it stops here, as the Brewblox firmware
        // does, and is stored so, so a restart keeps it stopped at the next line; after its last
        // line it is at END (disabledStatus).
        report(block, disabledStatus(block), 'NONE');
        persistProgress(block, ctx);
        next = now + IDLE_INTERVAL_MS;
        break;
      }
      if (result.kind === 'restart') {
        report(block, 'RESTART', 'NONE');
        advance(block, 0, now);
        s.holdUntil = now + RESTART_PAUSE_MS;
        next = s.holdUntil;
      } else if (result.kind === 'wait') {
        report(block, 'WAITING', 'NONE');
      } else {
        report(
          block,
          'ERROR',
          result.error,
          index,
          null,
          `instruction ${index + 1}: ${result.error}${result.detail ? `: ${result.detail}` : ''}`,
        );
      }
      break;
    }
    const elapsed = elapsedMs(s, now);
    d.elapsed = elapsed / 1000;
    if (!s.persisted && elapsed >= PERSIST_AFTER_MS) persistProgress(block, ctx);
    else if (timed(block) && s.persisted && Math.floor(elapsed / ELAPSED_STORE_MS) > s.storedPeriods)
      ctx.persist(block);
    if (s.persisted) s.storedPeriods = Math.floor(elapsed / ELAPSED_STORE_MS);
    return next;
  },
});

/**
 * Disabled: DISABLED before it started, PAUSED mid-way, END once past its last line (it ran every
 * line: a DISABLE of itself on the last one, or disabled after it ended). A WAIT_SEQUENCE on it is
 * then done, and its position is the one a sequence that ran off its end has.
 */
function disabledStatus(block: SequenceBlock): 'DISABLED' | 'PAUSED' | 'END' {
  const at = block.data.activeInstruction ?? 0;
  if (block.state.lines.length > 0 && at >= block.state.lines.length) return 'END';
  return at > 0 || block.state.startedAt !== null ? 'PAUSED' : 'DISABLED';
}

/**
 * The active instruction counts its time (WAIT_DURATION): only then is `elapsed` worth storing
 * every ELAPSED_STORE_MS. A sequence parked on WAIT or a temperature alarm for weeks is not written
 * to the SD card every minute.
 */
function timed(block: SequenceBlock): boolean {
  const index = block.data.activeInstruction;
  return index !== null && block.state.lines[index]?.instruction?.op === 'WAIT_DURATION';
}

function elapsedMs(s: SequenceState, now: number): number {
  if (s.startedAt === null) return 0;
  const paused = s.pausedMs + (s.pausedSince !== null ? now - s.pausedSince : 0);
  return Math.max(0, now - s.startedAt - paused);
}

function advance(block: SequenceBlock, index: number, now: number): void {
  block.data.activeInstruction = index;
  block.state.startedAt = now;
  block.state.pausedMs = 0;
  block.state.pausedSince = block.data.enabled ? null : now;
  block.state.persisted = false;
}

/** Jump to `index` with a fresh timer (override, START_SEQUENCE, changed instructions). */
function restartAt(block: SequenceBlock, index: number): void {
  const s = block.state;
  block.data.activeInstruction = index;
  // Not END any more, for a WAIT_SEQUENCE that looks before this sequence updates.
  block.data.status = 'UNKNOWN';
  // Stored with the new position by the write that made it, not the old instruction's time.
  block.data.elapsed = 0;
  s.resume = false;
  s.startedAt = null;
  s.pausedMs = 0;
  s.pausedSince = null;
  s.holdUntil = -Infinity;
  s.persisted = false;
}

/** The checkpoint: the sequence stored, after the blocks its lines changed (storedWith). */
function persistProgress(block: SequenceBlock, ctx: UpdateContext): void {
  ctx.persist(block);
  block.state.persisted = true;
}

function report(
  block: SequenceBlock,
  status: keyof typeof SequenceStatus,
  error: SequenceErrorName,
  at: number | null = null,
  pos: number | null = null,
  message = '',
): void {
  const d = block.data;
  d.status = status;
  d.error = error;
  d.errorInstruction = at;
  d.errorPos = pos;
  d.errorMessage = message;
}
