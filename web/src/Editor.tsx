// The Blocks page: every block (by name, with its type), a new block of any type, and one
// block's page: what it does now in words, its settings as a form (BlockForm), its JSON behind
// "Show JSON", and Delete.
import { useEffect, useState } from 'preact/hooks';
import { controller, type Block } from './api';
import {
  countsFromOne,
  fmtQty,
  headline,
  isLink,
  isQuantity,
  linkPlace,
  missingLinkWords,
  missingTargets,
  roleOf,
} from './blocks';
import { BlockForm, markCreated } from './BlockForm';
import { enumWord } from './enum-words';
import { enumValues, kindOf, durationWords } from './field-kinds';
import { fieldLabel, outputStory } from './explain.js';
import { applyPatch, useLive } from './live';
import type { Schema, TypeDoc } from './type-doc';
import { loadTypeDoc, useTypeDoc } from './use-type-doc';
import { Facts } from './Facts.js';

/** A read-only value in words: an enum as words, a duration as "2 min 10 s", a link as the block's name. */
function readOut(type: string, name: string, s: Schema, v: unknown, block: Block): string | null {
  if (v === null || v === undefined) return '—';
  const kind = kindOf(s);
  if (kind === 'enum' && typeof v === 'string') return enumWord(v, { type, field: name, block, values: enumValues(s) });
  if (kind === 'duration' && isQuantity(v)) return v.value === null ? '—' : durationWords(v.value);
  if (kind === 'quantity') return fmtQty(v, 2);
  if (kind === 'link') return isLink(v) ? (v.id ?? 'none') : String(v);
  if (kind === 'bool') return v ? 'yes' : 'no';
  if (kind === 'number' || kind === 'integer') {
    if (typeof v === 'number' && countsFromOne(type, name)) return String(v + 1);
    return typeof v === 'number' ? String(Math.round(v * 1000) / 1000) : String(v);
  }
  if (kind === 'string') return v === '' ? '—' : String(v);
  return null;
}

/** The block's read-only fields that have a value in words (lists and objects are in the JSON). */
function Now({ block, doc }: { block: Block; doc: TypeDoc }) {
  const live = useLive();
  const schema = doc.data.get(block.type)?.properties ?? {};
  const rows = Object.entries(schema)
    .filter(([name, s]) => s.readOnly === true && name in block.data)
    .map(([name, s]) => [fieldLabel(name), readOut(block.type, name, s, block.data[name], block)] as const)
    .filter((r): r is readonly [string, string] => r[1] !== null);
  const role = roleOf(block, doc.roles);
  const story = role === 'output' ? outputStory(block, live.blocks) : null;
  const big = headline(block, role);
  return (
    <div class="now" data-testid="block-now">
      {big && <div class="big">{big}</div>}
      {story && (
        <ul class="story">
          {story.why.map((w) => (
            <li>{w}</li>
          ))}
        </ul>
      )}
      {rows.length > 0 && <Facts rows={rows} />}
    </div>
  );
}

function NewBlock() {
  const [doc, setDoc] = useState<TypeDoc | null>(null);
  const [type, setType] = useState('');
  useEffect(() => void loadTypeDoc().then(setDoc, () => undefined), []);
  const types = doc ? [...doc.data.keys()].filter((t) => doc.roles.get(t) !== 'system').sort() : [];
  return (
    <section class="panel">
      <h2>New block</h2>
      <label>
        Type{' '}
        <select value={type} name="newType" onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
          <option value="">choose…</option>
          {types.map((t) => (
            <option value={t}>
              {t}
              {doc?.descriptions.get(t) ? `: ${doc.descriptions.get(t)}` : ''}
            </option>
          ))}
        </select>
      </label>
      {type && (
        <BlockForm
          key={type}
          type={type}
          onSaved={(b) => {
            markCreated(b.id);
            location.hash = `#/block/${encodeURIComponent(b.id)}`;
          }}
        />
      )}
    </section>
  );
}

/** Links of other blocks, as blocks/delete answers them (`dangling`), in words: "Cool PID (Output)". */
const linkWords = (links: Array<{ id: string; field: string }>): string =>
  links.map((l) => `${l.id} (${linkPlace(l.field.split('.'), fieldLabel)})`).join(', ');

const left = (links: Array<{ id: string; field: string }>): string =>
  links.length ? ` These links now point at nothing (each block shows it): ${linkWords(links)}.` : '';

/** The links of other blocks to `id` and the Sequence lines naming it, as a delete would leave them. */
function linksTo(id: string, blocks: Map<string, Block>): Array<{ id: string; field: string }> {
  return [...blocks.values()]
    .filter((b) => b.id !== id)
    .flatMap((b) => missingTargets(b, (x) => x !== id).map((l) => ({ id: b.id, field: l.path.join('.') })));
}

export function Editor({ id }: { id: string }) {
  const live = useLive();
  const doc = useTypeDoc();
  const [text, setText] = useState('');
  /** The block deleted here, with the links the delete left pointing nowhere (its answer's `dangling`). */
  const [deleted, setDeleted] = useState<{ id: string; dangling: Array<{ id: string; field: string }> } | null>(null);
  const renamedTo = live.blocks.has(id) ? undefined : live.renamed.get(id);
  // Renamed: the same block under its new name, so what was typed in its form stays.
  const block = id ? live.blocks.get(renamedTo ?? id) : undefined;
  // Renamed (here or elsewhere): the page follows the block to its new name.
  useEffect(() => {
    if (renamedTo !== undefined) location.replace(`#/block/${encodeURIComponent(renamedTo)}`);
  }, [renamedTo]);
  if (!id)
    return (
      <div>
        <section class="panel">
          <h2>Blocks</h2>
          <ul class="blocklist">
            {[...live.blocks.values()].map((b) => (
              <li>
                <a href={`#/block/${encodeURIComponent(b.id)}`}>{b.id}</a> <span class="type">{b.type}</span>
                {missingTargets(b, (x) => live.blocks.has(x)).map((l) => (
                  <span class="field-error"> {missingLinkWords(l.id)}</span>
                ))}
              </li>
            ))}
          </ul>
        </section>
        <NewBlock />
      </div>
    );
  if (!block)
    return (
      <p class="banner" data-testid="block-gone">
        {renamedTo !== undefined
          ? `Block "${id}" was renamed to "${renamedTo}".`
          : deleted?.id === id || live.deleted.has(id)
            ? `Block "${id}" was deleted${deleted?.id === id ? '' : ' (possibly elsewhere)'}.${left(deleted?.id === id ? deleted.dangling : linksTo(id, live.blocks))}`
            : live.loaded
              ? `There is no block "${id}".`
              : 'Loading…'}{' '}
        <a href="#/block">All blocks</a>
      </p>
    );
  const remove = async () => {
    const links = linksTo(block.id, live.blocks);
    const warn = links.length
      ? `\n\n${linkWords(links)} ${links.length > 1 ? 'link' : 'links'} to it: ${links.length > 1 ? 'those links' : 'the link'} will point at nothing.`
      : '';
    if (!confirm(`Delete ${block.id}?${warn}`)) return;
    const a = await controller<{ dangling?: Array<{ id: string; field: string }> }>('blocks/delete', { id: block.id });
    setText(a.ok ? 'deleted' : a.error);
    if (!a.ok) return;
    setDeleted({ id: block.id, dangling: a.body.dangling ?? [] });
    applyPatch([], [block.id]);
  };
  return (
    <section class="panel block-page">
      <h2>
        {block.id} <span class="type">{block.type}</span>
      </h2>
      {doc && <Now block={block} doc={doc} />}
      <BlockForm key={block.nid ?? block.id} type={block.type} block={block} onSaved={() => undefined} />
      <details class="json">
        <summary>Show JSON</summary>
        <pre>{JSON.stringify(block, null, 2)}</pre>
      </details>
      <button class="danger" onClick={() => void remove()}>
        Delete block
      </button>
      {text && <p class="answer">{text}</p>}
    </section>
  );
}
