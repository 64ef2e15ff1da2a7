// The autotune on a PID card: a Tune button, the progress while it runs (cycle k of n, time
// left) with Stop, the proposed gains with Apply and Discard, and Undo once applied. Everything
// is a patch of the block's `tuning.command`; the server says why when it refuses one.
import { useState } from 'preact/hooks';
import { patchBlock, type Block } from './api';
import { isQuantity, qtyValue, unitLabel } from './blocks';
import { parseNumber } from './field-kinds';
import { retyped } from './units';
import type { CardAnswer } from './CardFields';

const SECONDS: Record<string, number> = { s: 1, ms: 0.001, min: 60, h: 3600 };

/** A duration as the service sends it, in seconds. */
function seconds(v: unknown): number | null {
  const n = qtyValue(v);
  if (n === null) return null;
  return isQuantity(v) ? n * (SECONDS[v.unit] ?? 1) : n;
}

export function duration(v: unknown): string {
  const s = seconds(v);
  if (s === null) return '—';
  if (s >= 5400) return `${(s / 3600).toFixed(1)} h`;
  if (s >= 90) return `${Math.round(s / 60)} min`;
  return `${Math.round(s)} s`;
}

function num(v: unknown, digits = 2, withUnit = true): string {
  const n = qtyValue(v);
  if (n === null) return '—';
  return `${Math.round(n * 10 ** digits) / 10 ** digits}${withUnit && isQuantity(v) ? ` ${unitLabel(v.unit)}` : ''}`;
}

interface TuningView {
  state: string;
  message: string;
  cycle: number | null;
  cycles: number;
  phase: string;
  timeLeft: unknown;
  elapsed: unknown;
  tunedBy: unknown;
  amplitude: unknown;
  band: unknown;
  result: Record<string, unknown>;
  previous: Record<string, unknown> | null;
}

/** What was typed in a setting, in the unit it was typed in (converted when the user's unit changes meanwhile). */
interface Typed {
  text: string;
  unit: string;
}

/** A setting to tune with, typed as a number; left empty, the block's own (the placeholder) stands. */
function SettingInput(p: { label: string; text: string; unit: string; set: (v: Typed) => void; placeholder: string }) {
  return (
    <label>
      {p.label}
      <input
        inputMode="decimal"
        value={p.text}
        placeholder={p.placeholder}
        onInput={(e) => p.set({ text: (e.target as HTMLInputElement).value, unit: p.unit })}
      />
      <span class="unit">{unitLabel(p.unit)}</span>
    </label>
  );
}

/** The unit the service speaks for a tuning setting now (the block comes again after a unit change). */
const unitOf = (v: unknown): string => (isQuantity(v) ? v.unit : 'delta_degC');

export function TuningPanel({ block, answer }: { block: Block; answer: CardAnswer }) {
  const tu = block.data.tuning as TuningView | undefined;
  const [typedAmplitude, setAmplitude] = useState<Typed>({ text: '', unit: '' });
  const [typedBand, setBand] = useState<Typed>({ text: '', unit: '' });
  if (!tu) return null;
  const amplitudeUnit = unitOf(tu.amplitude);
  const bandUnit = unitOf(tu.band);
  const amplitude = retyped(typedAmplitude.text, typedAmplitude.unit, amplitudeUnit);
  const band = retyped(typedBand.text, typedBand.unit, bandUnit);
  const command = (c: string, okText: string, extra: Record<string, unknown> = {}) =>
    answer.run(patchBlock(block, { tuning: { command: c, ...extra } }), okText);
  const tunedBy = tu.tunedBy && typeof tu.tunedBy === 'object' ? (tu.tunedBy as { id?: string }).id : null;
  if (tunedBy)
    return (
      <p class="tuning muted" data-testid="tuning">
        Being tuned with {tunedBy} (its pair): the tuning drives this output too.
      </p>
    );
  const r = tu.result;
  const start = (e: Event) => {
    e.preventDefault();
    // A field left empty keeps the block's setting (shown as its placeholder); one that is not a
    // number is said, never dropped for the block's own (the tuning would drive the output with it).
    const settings: Record<string, number> = {};
    for (const [key, label, text] of [
      ['amplitude', 'Swing', amplitude],
      ['band', 'Band', band],
    ] as const) {
      try {
        const n = parseNumber(label, text);
        if (n !== null) settings[key] = n;
      } catch (e) {
        return answer.refuse(`not started: ${(e as Error).message}`, 'tuning');
      }
    }
    void command('START', 'tuning started', settings);
  };
  return (
    <div class="tuning" data-testid="tuning" data-state={tu.state}>
      {tu.state === 'RUNNING' && (
        <>
          <p data-testid="tuning-progress">
            Tuning: cycle {tu.cycle ?? 0} of {tu.cycles}
            {seconds(tu.timeLeft) !== null ? `, about ${duration(tu.timeLeft)} left` : ''} ({duration(tu.elapsed)} so
            far)
          </p>
          <div class="buttons">
            <button type="button" onClick={() => command('STOP', 'tuning stopped')}>
              Stop tuning
            </button>
          </div>
        </>
      )}
      {tu.state === 'PROPOSED' && (
        <>
          <p data-testid="tuning-result">
            Proposed: Kp {num(r.kp)}, Ti {duration(r.ti)}, Td {duration(r.td)}
            {r.pair
              ? `; ${String(r.pair)}: Kp ${num(r.pairKp)}, Ti ${duration(r.pairTi)}, Td ${duration(r.pairTd)}`
              : ''}
            . Measured a period of {duration(r.period)}, ±{num(r.amplitude)}. Expected for a 2° step: settles in{' '}
            {duration(r.settling)}, overshoot {num(r.overshoot)}.
            {(qtyValue(r.shortestRun) ?? 0) >= 0.01
              ? ` One shortest run of the output with a minimum on time moves it about ${num(r.shortestRun)}: expect swings of up to about that much.`
              : ''}
          </p>
          <div class="buttons">
            <button type="button" onClick={() => command('APPLY', 'gains applied')}>
              Apply gains
            </button>
            <button type="button" onClick={() => command('DISCARD', 'result discarded')}>
              Discard
            </button>
          </div>
        </>
      )}
      {/* The gains the last Apply replaced stay undoable until an Undo or the next Apply. */}
      {tu.state !== 'RUNNING' && tu.state !== 'PROPOSED' && qtyValue(tu.previous?.kp) !== null && (
        <div class="buttons">
          <button type="button" onClick={() => command('UNDO', 'previous gains back')}>
            Undo tuning
          </button>
        </div>
      )}
      {tu.state !== 'RUNNING' && tu.state !== 'PROPOSED' && (
        <form class="field" onSubmit={start}>
          <SettingInput
            label="Swing"
            text={amplitude}
            unit={amplitudeUnit}
            set={(v) => {
              setAmplitude(v);
              answer.edited();
            }}
            placeholder={num(tu.amplitude, 2, false)}
          />
          <SettingInput
            label="Band"
            text={band}
            unit={bandUnit}
            set={(v) => {
              setBand(v);
              answer.edited();
            }}
            placeholder={num(tu.band, 2, false)}
          />
          <button type="submit">Tune</button>
        </form>
      )}
      {/* A proposal is said in words above; the block's own message says it again in API terms. */}
      {tu.message && tu.state !== 'PROPOSED' && (
        <p class="muted" data-testid="tuning-message">
          {tu.message}
        </p>
      )}
    </div>
  );
}
