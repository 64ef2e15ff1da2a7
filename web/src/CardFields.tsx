// The controls a card's forms are made of: a number typed in a unit (kept, converted, when the
// unit changes meanwhile, and kept beside a refusal), a toggle, and the answer line under a card.
import { useState } from 'preact/hooks';
import type { Answer, Block } from './api';
import { unitLabel } from './blocks';
import { applyPatch } from './live';
import { retyped, typedInUnit } from './units';

/** Runs a REST call, shows the server's answer under the card, and applies the changed block. */
export function useAnswer(): [string, boolean, (p: Promise<Answer<Block>>, okText?: string) => Promise<boolean>] {
  const [text, setText] = useState('');
  const [bad, setBad] = useState(false);
  const run = async (p: Promise<Answer<Block>>, okText = 'saved') => {
    setText('sending…');
    setBad(false);
    const a = await p;
    // A whole block (not a rename's {id}) replaces the shown one before the next event.
    if (a.ok && a.body && typeof a.body === 'object' && 'id' in a.body && typeof a.body.data === 'object')
      applyPatch([a.body]);
    setText(a.ok ? okText : a.error);
    setBad(!a.ok);
    return a.ok;
  };
  return [text, bad, run];
}

export function NumberField(props: {
  label: string;
  value: number | null;
  unit: string;
  min?: number;
  max?: number;
  onSave: (v: number) => Promise<boolean>;
  testid?: string;
  /** Shown in the empty field (no value): what an empty one means. */
  placeholder?: string;
}) {
  // What was typed, in the unit it was typed in (converted when the user's unit changes meanwhile).
  const [draft, setDraft] = useState<{ text: string; unit: string } | null>(null);
  const [hint, setHint] = useState('');
  const shown = draft
    ? retyped(draft.text, draft.unit, props.unit)
    : props.value === null
      ? ''
      : String(Math.round(props.value * 100) / 100);
  const save = (e: Event) => {
    e.preventDefault();
    const typed = typedInUnit(shown, props.unit);
    if ('problem' in typed) return setHint(typed.problem);
    const v = typed.value;
    if (v === null || !Number.isFinite(v)) return setHint('enter a number');
    if ((props.min !== undefined && v < props.min) || (props.max !== undefined && v > props.max))
      return setHint(`between ${props.min} and ${props.max}`);
    setHint('');
    const sent = draft;
    // Refused, what was typed stays beside the error; typed again while on its way, that stays.
    void props.onSave(v).then((ok) => ok && setDraft((now) => (now === sent ? null : now)));
  };
  return (
    <form class="field" onSubmit={save}>
      <label>
        {props.label}
        <input
          inputMode="decimal"
          value={shown}
          placeholder={props.placeholder}
          data-testid={props.testid}
          onInput={(e) => setDraft({ text: (e.target as HTMLInputElement).value, unit: props.unit })}
        />
        <span class="unit">{unitLabel(props.unit)}</span>
      </label>
      <button type="submit">Set</button>
      {hint && <span class="hint bad">{hint}</span>}
    </form>
  );
}

export function Toggle(props: { label: string; on: boolean; onChange: (on: boolean) => void }) {
  return (
    <label class="toggle">
      <input
        type="checkbox"
        checked={props.on}
        onChange={(e) => props.onChange((e.target as HTMLInputElement).checked)}
      />{' '}
      {props.label}
    </label>
  );
}
