// The form for any block type, from the controller's OpenAPI document (`/{serviceId}/api/doc/json`,
// the create request's schema per type): enum values as words, units beside numbers, durations
// as people write them, links as pickers of the blocks that fit, constraints as constraints.
// What has no form of its own (a list of profile points) is edited as JSON behind "Show JSON".
// Editing sends only the changed fields as a patch; a new block is sent to create. The server's
// answer, 422 messages included, is shown as it came.
import { useEffect, useState } from 'preact/hooks';
import { createBlock, patchBlock, type Block } from './api';
import {
  analogUnitLabel,
  countsFromOne,
  type DanglingLink,
  isQuantity,
  missingTargets,
  missingTargetWords,
  unitLabel,
} from './blocks';
import { ConstraintsField } from './ConstraintsField';
import { type Constraint, type ConstraintDraft, constraintsPatch } from './constraints';
import { enumWord } from './enum-words';
import { LinkSelect, MissingLink } from './LinkSelect';
import {
  checkLines,
  enumValues,
  fromText,
  type Kind,
  kindOf,
  linkInterface,
  notEditable,
  rangeOf,
  toText,
} from './field-kinds';
import { driverOf, fieldLabel } from './explain.js';
import { applyPatch, useLive } from './live';
import type { Role, Schema, TypeDoc } from './type-doc';
import { inUserUnit, prefsOf, retyped, shown, type UnitPrefs } from './units';
import { loadTypeDoc } from './use-type-doc';

/** The unit beside a plain number, where the field's meaning gives one (the API document gives quantities' only). */
function plainUnit(field: string, role: Role | undefined, block: Block | undefined): string {
  if (field === 'voltsLow' || field === 'voltsHigh') return 'V';
  if ((field === 'valueLow' || field === 'valueHigh') && block) return analogUnitLabel(block.data.unit);
  // An analog output's setting (a PWM's duty) is a percentage.
  if (role === 'output' && /^(stored|min|max)Setting$/.test(field)) return '%';
  return '';
}

/**
 * The unit of an analog output's limits (`constraints.min/max.value`). A Setpoint Driver's are an
 * offset in Δ°C whatever the unit preference (plain numbers, as Brewblox keeps them): with °F
 * preferred, its setting shows in Δ°F beside them, and a limit of 10 is 18 Δ°F.
 */
function limitUnit(role: Role | undefined, block: Block | undefined): string {
  return block?.type === 'ActuatorOffset' ? 'Δ°C' : plainUnit('storedSetting', role, block);
}

/** The unit a quantity field is written in now (`degF`): the block's, or the user's for the field's kind. */
function quantityUnit(name: string, s: Schema, kind: Kind, prefs: UnitPrefs, block?: Block): string {
  const current = block?.data[name];
  if (isQuantity(current)) return current.unit;
  return kind === 'quantity' ? inUserUnit(s['x-unit'] ?? '', prefs) : '';
}

/** The unit of a field as the form shows it, in the user's units. */
function unitOf(name: string, s: Schema, kind: Kind, prefs: UnitPrefs, role: Role | undefined, block?: Block): string {
  // A duration is written with its units ("2 min 30 s").
  if (kind === 'duration') return '';
  const q = quantityUnit(name, s, kind, prefs, block);
  if (q) return unitLabel(q);
  if (kind === 'number' || kind === 'integer') return plainUnit(name, role, block);
  return '';
}

/** The range of a field in the user's units (the document gives it in the internal ones). */
function shownRange(s: Schema, kind: Kind, prefs: UnitPrefs): { min?: number; max?: number } {
  const { min, max } = rangeOf(s);
  const unit = kind === 'quantity' ? (s['x-unit'] ?? '') : '';
  return {
    min: min === undefined ? undefined : shown(min, unit, prefs),
    max: max === undefined ? undefined : shown(max, unit, prefs),
  };
}

/** A JSON field in words: "3 entries", "empty". */
function jsonSummary(v: unknown): string {
  if (Array.isArray(v)) return v.length ? `${v.length} entr${v.length === 1 ? 'y' : 'ies'}` : 'empty';
  if (v && typeof v === 'object') {
    const n = Object.keys(v).length;
    return n ? `${n} entr${n === 1 ? 'y' : 'ies'}` : 'empty';
  }
  return v === null || v === undefined ? 'not set' : String(v);
}

/**
 * Under a Sequence's instructions as typed: each line that names a missing block, in the card's
 * words and by its rule (blocks.ts missingTargets), before it is saved and the sequence gets there.
 */
function MissingLines({ missing }: { missing: DanglingLink[] }) {
  if (!missing.length) return null;
  return (
    <span class="field-error" data-testid="dangling-instructions">
      {missing.map((l) => (
        <span class="line">{missingTargetWords(l, fieldLabel)}</span>
      ))}
    </span>
  );
}

/** The block just created here: its own page opens next and says so. */
let created: string | null = null;
export const markCreated = (id: string) => void (created = id);

export function BlockForm({ type, block, onSaved }: { type: string; block?: Block; onSaved: (b: Block) => void }) {
  const live = useLive();
  const [fields, setFields] = useState<Array<[string, Schema]> | null>(null);
  const [types, setTypes] = useState<TypeDoc | null>(null);
  const [error, setError] = useState('');
  const [draft, setDraft] = useState<Record<string, string>>({});
  // The unit each draft was typed in: a draft is converted when the user's unit changes meanwhile.
  const [typedIn, setTypedIn] = useState<Record<string, string>>({});
  const [constraintDrafts, setConstraintDrafts] = useState<Record<string, Record<string, ConstraintDraft>>>({});
  const [newId, setNewId] = useState('');
  const [answer, setAnswer] = useState<{ text: string; bad: boolean } | null>(
    block && created === block.id ? { text: `created ${block.id}`, bad: false } : null,
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  // Something typed or picked since: a success said before is not about it (a refusal stays
  // while the fields it names are corrected).
  const edited = () => setAnswer((a) => (a && !a.bad && a.text !== 'sending…' ? null : a));
  useEffect(() => {
    loadTypeDoc().then(
      (doc) => {
        const s = doc.data.get(type);
        if (!s) return setError(`the API documents no type ${type}`);
        setTypes(doc);
        setFields(Object.entries(s.properties ?? {}).filter(([, f]) => !notEditable(f)));
      },
      (e: Error) => setError(`cannot read the API schema: ${e.message}`),
    );
  }, [type]);
  if (error) return <p class="answer bad">{error}</p>;
  if (!fields) return <p>Reading the schema…</p>;
  const prefs = prefsOf(live.status);
  const driver = block ? driverOf(block) : null;
  const role = types?.roles.get(type);
  /** The text of a field as the form shows it: the typed draft (in the field's unit now), or the block's value. */
  /** The range of a field as typed: from 1 for a count the API starts at 0 (countsFromOne). */
  const rangeOfField = (name: string, s: Schema, kind: Kind) => {
    const { min, max } = shownRange(s, kind, prefs);
    if (!countsFromOne(type, name)) return { min, max };
    return { min: (min ?? 0) + 1, max: max === undefined ? undefined : max + 1 };
  };
  /** The block's value as the form shows it (a count the API starts at 0 from 1). */
  const valueText = (name: string, kind: Kind, v: unknown): string =>
    typeof v === 'number' && countsFromOne(type, name) ? String(v + 1) : toText(kind, v);
  const textOf = (name: string, s: Schema, kind: Kind): string | undefined => {
    const typed = draft[name];
    if (typed === undefined) return undefined;
    const unit = quantityUnit(name, s, kind, prefs, block);
    return retyped(typed, typedIn[name] ?? unit, unit);
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    const data: Record<string, unknown> = {};
    const bad: Record<string, string> = {};
    for (const [name, s] of fields) {
      const kind = kindOf(s);
      try {
        if (kind === 'constraints') {
          const drafts = constraintDrafts[name];
          if (!drafts) continue;
          const patch = constraintsPatch(s, (block?.data[name] ?? {}) as Record<string, Constraint>, drafts);
          if (patch) data[name] = patch;
          continue;
        }
        if (!(name in draft)) continue;
        const v = fromText(kind, fieldLabel(name), textOf(name, s, kind)!);
        if (kind === 'lines') checkLines(fieldLabel(name), s, v as string[]);
        const { min, max } = rangeOfField(name, s, kind);
        if (typeof v === 'number' && ((min !== undefined && v < min) || (max !== undefined && v > max)))
          throw new Error(`${fieldLabel(name)}: between ${min ?? '−∞'} and ${max ?? '∞'}`);
        data[name] = typeof v === 'number' && countsFromOne(type, name) ? v - 1 : v;
      } catch (err) {
        bad[name] = (err as Error).message;
      }
    }
    // A Sequence takes `activeInstruction` from a write only with `overrideState` (as Brewblox):
    // without it the instruction typed here was answered "saved" and not taken.
    if (type === 'Sequence' && 'activeInstruction' in data) data.overrideState = true;
    setErrors(bad);
    if (Object.keys(bad).length) return setAnswer({ text: `not sent: ${Object.values(bad).join('; ')}`, bad: true });
    if (!block && !newId.trim()) return setAnswer({ text: 'give the new block a name', bad: true });
    if (block && !Object.keys(data).length) return setAnswer({ text: 'nothing changed', bad: false });
    setAnswer({ text: 'sending…', bad: false });
    const a = block ? await patchBlock(block, data) : await createBlock({ id: newId.trim(), type, data });
    setAnswer({ text: a.ok ? (block ? 'saved' : 'created') : a.error, bad: !a.ok });
    if (a.ok) {
      setDraft({});
      setTypedIn({});
      setConstraintDrafts({});
      applyPatch([a.body]);
      onSaved(a.body);
    }
  };

  /** Blocks a link of interface `iface` may point to (all, when the document does not say). */
  const linkTargets = (iface: string | null) =>
    [...live.blocks.values()]
      .filter(
        (b) =>
          b.id !== block?.id &&
          (iface === null || iface === 'Any' || (types?.implements.get(b.type) ?? [iface]).includes(iface)),
      )
      .map((b) => b.id);
  return (
    <form class="editor grid" onSubmit={submit} data-testid="block-form">
      {!block && (
        <label>
          Name{' '}
          <input
            value={newId}
            onInput={(e) => {
              setNewId((e.target as HTMLInputElement).value);
              edited();
            }}
            name="id"
          />
        </label>
      )}
      {fields.map(([name, s]) => {
        const kind = kindOf(s);
        const current = block?.data[name];
        if (kind === 'constraints')
          return (
            <div class="wide">
              <ConstraintsField
                name={name}
                schema={s}
                block={block}
                blocks={live.blocks}
                drafts={constraintDrafts[name] ?? {}}
                setDrafts={(d) => {
                  setConstraintDrafts({ ...constraintDrafts, [name]: d });
                  edited();
                }}
                linkTargets={linkTargets}
                unit={limitUnit(role, block)}
              />
              {errors[name] && (
                <span class="field-error" data-testid={`error-${name}`}>
                  {errors[name]}
                </span>
              )}
            </div>
          );
        const text = textOf(name, s, kind) ?? valueText(name, kind, current);
        const set = (v: string) => {
          setDraft({ ...draft, [name]: v });
          setTypedIn({ ...typedIn, [name]: quantityUnit(name, s, kind, prefs, block) });
          edited();
        };
        const unit = unitOf(name, s, kind, prefs, role, block);
        const invalid = errors[name];
        const { min, max } = rangeOfField(name, s, kind);
        // A Sequence's lines as typed that name a missing block, by the card's rule.
        const missingLines =
          kind === 'lines' && type === 'Sequence'
            ? missingTargets({ id: '', type, data: { instructions: text.split('\n') } }, (id) => live.blocks.has(id))
            : [];
        if (kind === 'json')
          return (
            <div class="wide json-field">
              <span>
                {fieldLabel(name)}: <span class="muted">{jsonSummary(current)}</span>
              </span>
              <details>
                <summary>Show JSON</summary>
                <textarea
                  name={name}
                  rows={6}
                  value={text}
                  aria-label={`${fieldLabel(name)} as JSON`}
                  aria-invalid={invalid ? 'true' : undefined}
                  onInput={(e) => set((e.target as HTMLTextAreaElement).value)}
                />
              </details>
              {invalid && (
                <span class="field-error" data-testid={`error-${name}`}>
                  {invalid}
                </span>
              )}
            </div>
          );
        return (
          <label title={s.description}>
            {fieldLabel(name)}
            <span class="control">
              {kind === 'enum' ? (
                <select name={name} value={text} onChange={(e) => set((e.target as HTMLSelectElement).value)}>
                  {!text && <option value="" />}
                  {enumValues(s).map((v, _, all) => (
                    <option value={v}>{enumWord(v, { type, field: name, block, values: all })}</option>
                  ))}
                </select>
              ) : kind === 'link' ? (
                <LinkSelect
                  name={name}
                  value={text}
                  targets={linkTargets(linkInterface(s))}
                  empty="(none)"
                  exists={(id) => live.blocks.has(id)}
                  set={set}
                />
              ) : kind === 'lines' ? (
                <textarea
                  name={name}
                  rows={5}
                  value={text}
                  aria-invalid={invalid || missingLines.length ? 'true' : undefined}
                  onInput={(e) => set((e.target as HTMLTextAreaElement).value)}
                />
              ) : kind === 'bool' ? (
                <input
                  type="checkbox"
                  name={name}
                  checked={text === 'true'}
                  onChange={(e) => set(String((e.target as HTMLInputElement).checked))}
                />
              ) : (
                <input
                  name={name}
                  value={text}
                  aria-invalid={invalid ? 'true' : undefined}
                  placeholder={kind === 'duration' ? 'e.g. 2 min 30 s' : undefined}
                  inputMode={
                    kind === 'number' || kind === 'quantity' ? 'decimal' : kind === 'integer' ? 'numeric' : undefined
                  }
                  onInput={(e) => set((e.target as HTMLInputElement).value)}
                />
              )}
              {unit && <span class="unit">{unit}</span>}
            </span>
            {kind === 'link' && <MissingLink name={name} value={text} exists={(id) => live.blocks.has(id)} />}
            <MissingLines missing={missingLines} />
            {(min !== undefined || max !== undefined) &&
              (kind === 'quantity' || kind === 'number' || kind === 'integer') && (
                <span class="hint">
                  {min ?? '−∞'} to {max ?? '∞'}
                  {unit ? ` ${unit}` : ''}
                </span>
              )}
            {driver && /^stored(State|Setting)$/.test(name) && (
              <span class="hint" data-testid={`driven-${name}`}>
                {/* Brewblox's ratchet: the driver's next update puts settingMode back to CLAIMED. */}
                {driver} drives it now: {name === 'storedState' ? 'a state' : 'a setting'} here is kept but not used,
                nor once {driver} lets go (no {name === 'storedState' ? 'state' : 'setting'} until one is set).
              </span>
            )}
            {invalid && (
              <span class="field-error" data-testid={`error-${name}`}>
                {invalid}
              </span>
            )}
          </label>
        );
      })}
      <div class="wide buttons">
        <button type="submit">{block ? 'Save changes' : 'Create block'}</button>
      </div>
      {answer && (
        <p class={`answer wide ${answer.bad ? 'bad' : 'good'}`} role="status" data-testid="editor-answer">
          {answer.text}
        </p>
      )}
    </form>
  );
}
