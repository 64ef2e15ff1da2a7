// A generic block editor: the form for any block type comes from the controller's OpenAPI
// document (`/{serviceId}/api/doc/json`, the create request's schema per type). Editing sends
// only the changed fields as a patch; a new block is sent to create. The server's answer,
// 422 messages included, is shown as it came.
import { useEffect, useState } from 'preact/hooks';
import { controller, createBlock, patchBlock, type Block } from './api';
import { isLink, isQuantity, unitLabel } from './blocks';
import { fieldLabel } from './explain.js';
import { applyPatch, useLive } from './live';
import type { Schema, TypeDoc } from './type-doc';
import { loadTypeDoc } from './use-type-doc';

/** The interface a link field takes (`type` of the Link object in the schema). */
function linkInterface(s: Schema): string | null {
  for (const v of s.anyOf ?? [s]) {
    const t = v.properties?.type;
    if (t?.const !== undefined) return String(t.const);
    if (t?.enum?.length === 1) return String(t.enum[0]);
  }
  return null;
}

/** String choices of an enum field, also when written as a union of literals (nested anyOf). */
function enumValues(s: Schema): string[] {
  if (s.type === 'string' && s.enum) return s.enum.map(String);
  return (s.anyOf ?? []).flatMap(enumValues);
}

type Kind = 'quantity' | 'link' | 'enum' | 'bool' | 'integer' | 'number' | 'string' | 'lines' | 'json';

function kindOf(s: Schema): Kind {
  const variants = s.anyOf ?? [s];
  if (variants.some((v) => v.properties?.__objtype?.enum?.includes('Quantity'))) return 'quantity';
  if (variants.some((v) => v.properties?.__objtype?.enum?.includes('Link'))) return 'link';
  if (enumValues(s).length) return 'enum';
  if (s.type === 'boolean') return 'bool';
  if (s.type === 'integer') return 'integer';
  if (s.type === 'number') return 'number';
  if (s.type === 'string') return 'string';
  // A list of strings (a Sequence's instructions): one per line in a text area.
  if (s.type === 'array' && s.items?.type === 'string') return 'lines';
  return 'json';
}

/** Read-only (`readOnly`) or refused as not supported / legacy (`deprecated`): not a form field. */
const notEditable = (s: Schema) => s.readOnly === true || s.deprecated === true;

/** The field's range from the schema (`minimum`/`maximum`, on the number or a quantity's value). */
function rangeOf(s: Schema): { min?: number; max?: number } {
  for (const v of [
    s,
    ...(s.anyOf ?? []),
    ...(s.anyOf ?? []).flatMap((a) => [
      ...(a.anyOf ?? []),
      a.properties?.value ?? {},
      ...(a.properties?.value?.anyOf ?? []),
    ]),
  ]) {
    if (v.minimum !== undefined || v.maximum !== undefined) return { min: v.minimum, max: v.maximum };
  }
  return {};
}

/** The unit a quantity field takes (the schema's x-unit), in the user's temperature unit. */
function schemaUnit(s: Schema, temperature: string): string {
  const unit = s['x-unit'] ?? '';
  return temperature === 'degF' ? unit.replace(/degC/g, 'degF') : unit;
}

/** The form value of a field (strings in inputs), from the block's current data. */
function toText(kind: Kind, v: unknown): string {
  if (v === undefined || v === null) return '';
  if (kind === 'quantity') return isQuantity(v) ? (v.value === null ? '' : String(v.value)) : String(v);
  if (kind === 'link') return isLink(v) ? (v.id ?? '') : String(v);
  if (kind === 'lines') return Array.isArray(v) ? v.join('\n') : String(v);
  if (kind === 'json') return JSON.stringify(v);
  return String(v);
}

/** What to send for a field; throws a message in words for input the server would refuse anyway. */
function fromText(kind: Kind, name: string, text: string): unknown {
  switch (kind) {
    case 'quantity':
    case 'integer':
    case 'number': {
      if (text.trim() === '') return null;
      const n = Number(text.replace(',', '.'));
      if (!Number.isFinite(n)) throw new Error(`${name}: "${text}" is not a number`);
      if (kind === 'integer' && !Number.isInteger(n)) throw new Error(`${name}: "${text}" is not a whole number`);
      return n;
    }
    case 'link':
      return { __objtype: 'Link', id: text.trim() || null };
    case 'bool':
      return text === 'true';
    case 'lines': {
      const lines = text.split('\n').map((l) => l.trimEnd());
      while (lines.length && lines[lines.length - 1] === '') lines.pop();
      return lines;
    }
    case 'json':
      try {
        return text.trim() === '' ? null : JSON.parse(text);
      } catch {
        throw new Error(`${name}: not valid JSON`);
      }
    default:
      return text;
  }
}

/** The block just created here: its own page opens next and says so. */
let created: string | null = null;

function BlockForm({ type, block, onSaved }: { type: string; block?: Block; onSaved: (b: Block) => void }) {
  const live = useLive();
  const [fields, setFields] = useState<Array<[string, Schema]> | null>(null);
  const [types, setTypes] = useState<TypeDoc | null>(null);
  const [error, setError] = useState('');
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [newId, setNewId] = useState('');
  const [answer, setAnswer] = useState<{ text: string; bad: boolean } | null>(
    block && created === block.id ? { text: `created ${block.id}`, bad: false } : null,
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
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

  const submit = async (e: Event) => {
    e.preventDefault();
    const data: Record<string, unknown> = {};
    const bad: Record<string, string> = {};
    for (const [name, s] of fields) {
      if (!(name in draft)) continue;
      try {
        const v = fromText(kindOf(s), fieldLabel(name), draft[name]!);
        const { min, max } = rangeOf(s);
        // The server's range (from the field table, in °C and seconds); a quantity in °F is checked there.
        const unitShown = isQuantity(block?.data[name]) ? (block!.data[name] as { unit: string }).unit : '';
        if (
          typeof v === 'number' &&
          !/degF/.test(unitShown) &&
          ((min !== undefined && v < min) || (max !== undefined && v > max))
        )
          throw new Error(`${fieldLabel(name)}: between ${min ?? '−∞'} and ${max ?? '∞'}`);
        data[name] = v;
      } catch (err) {
        bad[name] = (err as Error).message;
      }
    }
    setErrors(bad);
    if (Object.keys(bad).length) return setAnswer({ text: `not sent: ${Object.values(bad).join('; ')}`, bad: true });
    if (!block && !newId.trim()) return setAnswer({ text: 'give the new block a name', bad: true });
    if (block && !Object.keys(data).length) return setAnswer({ text: 'nothing changed', bad: false });
    setAnswer({ text: 'sending…', bad: false });
    const a = block ? await patchBlock(block, data) : await createBlock({ id: newId.trim(), type, data });
    setAnswer({ text: a.ok ? (block ? 'saved' : 'created') : a.error, bad: !a.ok });
    if (a.ok) {
      setDraft({});
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
          Name <input value={newId} onInput={(e) => setNewId((e.target as HTMLInputElement).value)} name="id" />
        </label>
      )}
      {fields.map(([name, s]) => {
        const kind = kindOf(s);
        const current = block?.data[name];
        const text = draft[name] ?? toText(kind, current);
        const set = (v: string) => setDraft({ ...draft, [name]: v });
        const temperature = (live.status.units as { temperature?: string } | undefined)?.temperature ?? 'degC';
        const unit = isQuantity(current)
          ? unitLabel(current.unit)
          : kind === 'quantity'
            ? unitLabel(schemaUnit(s, temperature))
            : '';
        const invalid = errors[name];
        return (
          <label title={s.description}>
            {fieldLabel(name)}
            {kind === 'enum' ? (
              <select name={name} value={text} onChange={(e) => set((e.target as HTMLSelectElement).value)}>
                {!text && <option value="" />}
                {enumValues(s).map((v) => (
                  <option value={v}>{v}</option>
                ))}
              </select>
            ) : kind === 'link' ? (
              <select name={name} value={text} onChange={(e) => set((e.target as HTMLSelectElement).value)}>
                <option value="">(none)</option>
                {linkTargets(linkInterface(s)).map((id) => (
                  <option value={id}>{id}</option>
                ))}
              </select>
            ) : kind === 'lines' ? (
              <textarea
                name={name}
                rows={5}
                value={text}
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
                min={rangeOf(s).min}
                max={rangeOf(s).max}
                aria-invalid={invalid ? 'true' : undefined}
                inputMode={
                  kind === 'number' || kind === 'quantity' ? 'decimal' : kind === 'integer' ? 'numeric' : undefined
                }
                onInput={(e) => set((e.target as HTMLInputElement).value)}
              />
            )}
            {unit && <span class="unit">{unit}</span>}
            {invalid && (
              <span class="field-error" data-testid={`error-${name}`}>
                {invalid}
              </span>
            )}
          </label>
        );
      })}
      <button type="submit">{block ? 'Save changes' : 'Create block'}</button>
      {answer && (
        <p class={`answer ${answer.bad ? 'bad' : 'good'}`} role="status" data-testid="editor-answer">
          {answer.text}
        </p>
      )}
    </form>
  );
}

function NewBlock() {
  const [types, setTypes] = useState<string[]>([]);
  const [type, setType] = useState('');
  useEffect(
    () =>
      void loadTypeDoc().then(
        (doc) => setTypes([...doc.data.keys()].filter((t) => doc.roles.get(t) !== 'system')),
        () => undefined,
      ),
    [],
  );
  return (
    <section class="panel">
      <h2>New block</h2>
      <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
        <option value="">type…</option>
        {types.map((t) => (
          <option value={t}>{t}</option>
        ))}
      </select>
      {type && (
        <BlockForm
          key={type}
          type={type}
          onSaved={(b) => {
            created = b.id;
            location.hash = `#/block/${encodeURIComponent(b.id)}`;
          }}
        />
      )}
    </section>
  );
}

export function Editor({ id }: { id: string }) {
  const live = useLive();
  const [text, setText] = useState('');
  if (!id)
    return (
      <div>
        <section class="panel">
          <h2>Blocks</h2>
          <ul class="blocklist">
            {[...live.blocks.values()].map((b) => (
              <li>
                <a href={`#/block/${encodeURIComponent(b.id)}`}>{b.id}</a> <span class="type">{b.type}</span>
              </li>
            ))}
          </ul>
        </section>
        <NewBlock />
      </div>
    );
  const block = live.blocks.get(id);
  if (!block)
    return (
      <p class="banner" data-testid="block-gone">
        {live.deleted.has(id)
          ? `Block "${id}" was deleted (possibly elsewhere).`
          : live.loaded
            ? `There is no block "${id}".`
            : 'Loading…'}{' '}
        <a href="#/block">All blocks</a>
      </p>
    );
  const remove = async () => {
    if (!confirm(`Delete ${id}?`)) return;
    const a = await controller('blocks/delete', { id });
    setText(a.ok ? 'deleted' : a.error);
    if (a.ok) applyPatch([], [id]);
  };
  return (
    <section class="panel">
      <h2>
        {block.id} <span class="type">{block.type}</span>
      </h2>
      <BlockForm key={block.id} type={block.type} block={block} onSaved={() => undefined} />
      <details>
        <summary>Current JSON</summary>
        <pre>{JSON.stringify(block, null, 2)}</pre>
      </details>
      <button class="danger" onClick={() => void remove()}>
        Delete block
      </button>
      {text && <p class="answer">{text}</p>}
    </section>
  );
}
