// The controls a card's forms are made of: a number typed in a unit (kept, converted, when the
// unit changes meanwhile, and kept beside a refusal), a toggle, and the answer line under a card.
import { useRef, useState } from 'preact/hooks';
import type { Answer, Block } from './api';
import { unitLabel } from './blocks';
import { applyPatch } from './live';
import { retyped, typedInUnit } from './units';

/** What a card says under its controls. `from` names the form that refused (a refusal made in the page). */
export interface Said {
  text: string;
  bad: boolean;
  sending?: boolean;
  from?: string;
}

/**
 * A card's one answer line, the answer to the last thing done on it; every control of the card says
 * its answers here, none beside itself (a refusal beside a field and "saved" under the card said both).
 */
export interface CardAnswer {
  said: Said | null;
  /** Runs a REST call, says "sending…" then the server's answer, and applies the changed block. */
  run: (p: Promise<Answer<Block>>, okText?: string) => Promise<boolean>;
  /** A refusal made in the page (nothing sent), by the form `from`: it replaces what the card said. */
  refuse: (text: string, from: string) => void;
  /** Something typed or picked and not sent yet: a success said before is not about it. A refusal stays beside what is being mended. */
  edited: () => void;
  /** The form `from` closed or replaced what it refused: its refusal goes with it. */
  withdraw: (from: string) => void;
}

/** The answer line of one card (see CardAnswer). */
export function useAnswer(): CardAnswer {
  const [said, setSaid] = useState<Said | null>(null);
  // Edits made on the card, counted: a success answered after an edit is not said beside it.
  const edits = useRef(0);
  const run = async (p: Promise<Answer<Block>>, okText = 'saved') => {
    setSaid({ text: 'sending…', bad: false, sending: true });
    const at = edits.current;
    const a = await p;
    // A whole block (not a rename's {id}) replaces the shown one before the next event.
    if (a.ok && a.body && typeof a.body === 'object' && 'id' in a.body && typeof a.body.data === 'object')
      applyPatch([a.body]);
    setSaid(a.ok ? (edits.current === at ? { text: okText, bad: false } : null) : { text: a.error, bad: true });
    return a.ok;
  };
  return {
    said,
    run,
    refuse: (text, from) => setSaid({ text, bad: true, from }),
    edited: () => {
      edits.current++;
      setSaid((now) => (now && !now.bad && !now.sending ? null : now));
    },
    withdraw: (from) => setSaid((now) => (now?.from === from ? null : now)),
  };
}

/** The card's answer line: what its last action was answered, in one place. */
export function AnswerLine({ said }: { said: Said | null }) {
  return said ? (
    <p class={`answer ${said.bad ? 'bad' : 'good'}`} role="status" data-testid="card-answer">
      {said.text}
    </p>
  ) : null;
}

export function NumberField(props: {
  label: string;
  value: number | null;
  unit: string;
  min?: number;
  max?: number;
  onSave: (v: number) => Promise<boolean>;
  /** The card's answer line: a refusal is said there, and typing clears a "saved". */
  answer: Pick<CardAnswer, 'refuse' | 'edited'>;
  testid?: string;
  /** Shown in the empty field (no value): what an empty one means. */
  placeholder?: string;
}) {
  // What was typed, in the unit it was typed in (converted when the user's unit changes meanwhile).
  const [draft, setDraft] = useState<{ text: string; unit: string } | null>(null);
  const shown = draft
    ? retyped(draft.text, draft.unit, props.unit)
    : props.value === null
      ? ''
      : String(Math.round(props.value * 100) / 100);
  const refuse = (problem: string) => props.answer.refuse(`not set: ${problem}`, props.label);
  const save = (e: Event) => {
    e.preventDefault();
    const typed = typedInUnit(shown, props.unit);
    if ('problem' in typed) return refuse(typed.problem);
    const v = typed.value;
    if (v === null || !Number.isFinite(v)) return refuse('enter a number');
    const { min, max } = props;
    if ((min !== undefined && v < min) || (max !== undefined && v > max))
      return refuse(`between ${min ?? '−∞'} and ${max ?? '∞'} ${unitLabel(props.unit)}`);
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
          onInput={(e) => {
            setDraft({ text: (e.target as HTMLInputElement).value, unit: props.unit });
            props.answer.edited();
          }}
        />
        <span class="unit">{unitLabel(props.unit)}</span>
      </label>
      <button type="submit">Set</button>
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
