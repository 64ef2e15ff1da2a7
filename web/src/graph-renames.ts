// The graph follows a renamed block. History names a field by the block's id
// (`<controller>/<block id>/<field>`), so after a rename the block's points go on under its new
// name and the ones from before stay under the old one. The graph remembers, for this controller's
// blocks it draws, each block's nid and type (a rename keeps both) and the block set they belong
// to (the stream's `blockSet`: another after a backup load, which brings the backup's nids, and on
// another data dir, whose nids start at 100 again). When a block it draws is gone and its nid is
// now another block of the same type in the same block set, the block was renamed, by whatever
// path (this page, another tab, REST, the Brewblox UI), while the page was open or not. The graph
// then draws the new name's fields after the old ones, which it keeps (the history from before
// the rename), and says so. Across block sets nothing is followed: a nid there names another
// block, and the marks from before are dropped. Pure (no DOM), tested under Node.
import { type ChartLook, fieldParts, fieldWords, legendLabel, scaleOf, type FieldParts } from './graph-fields.js';

export interface BlockMark {
  nid: number;
  type: string;
}

export interface GraphMemory {
  /** This controller's blocks the graph's fields belong to, by id, as last seen. */
  blocks: Record<string, BlockMark>;
  /** Former ids of this controller's blocks whose fields the graph still draws → the block's id now. */
  former: Record<string, string>;
  /** The block set the marks belong to (absent in a memory from before it was kept: none followed). */
  set?: string;
}

/** What the graph needs of a live block. */
export interface LiveBlock {
  id: string;
  nid?: number;
  type: string;
}

export const emptyMemory = (): GraphMemory => ({ blocks: {}, former: {} });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A memory read back from storage: anything damaged or of another shape is left out. */
export function readMemory(text: string | null): GraphMemory {
  const out = emptyMemory();
  let v: unknown;
  try {
    v = JSON.parse(text ?? '{}');
  } catch {
    return out;
  }
  if (!isObject(v)) return out;
  if (isObject(v.blocks))
    for (const [id, m] of Object.entries(v.blocks))
      if (isObject(m) && typeof m.nid === 'number' && typeof m.type === 'string')
        out.blocks[id] = { nid: m.nid, type: m.type };
  if (isObject(v.former))
    for (const [id, now] of Object.entries(v.former)) if (typeof now === 'string') out.former[id] = now;
  if (typeof v.set === 'string') out.set = v.set;
  return out;
}

/**
 * The block of controller `own` that `field` belongs to: the longest of `ids` it starts with
 * (block ids may hold `/`, and a field's own path may too).
 */
export function ownerOf(field: string, own: string, ids: Iterable<string>): string | undefined {
  const prefix = `${own}/`;
  if (!field.startsWith(prefix)) return undefined;
  let best: string | undefined;
  for (const id of ids)
    if (field.startsWith(`${prefix}${id}/`) && (best === undefined || id.length > best.length)) best = id;
  return best;
}

/** `field` of block `from` as the same field of block `to`. */
export const moveField = (field: string, own: string, from: string, to: string): string =>
  `${own}/${to}/${field.slice(`${own}/${from}/`.length)}`;

export interface Followed {
  fields: string[];
  memory: GraphMemory;
  /** The renames followed now: [former id, id now]. */
  renamed: Array<[string, string]>;
}

/**
 * Follows the renames of this controller's blocks (`blocks`: the live ones, by id) in `fields`:
 * each field of a block renamed since is kept, and the same field of the block's new name is
 * added after it. Returns the memory to keep: the blocks the fields belong to, and the former ids
 * still drawn. With no live blocks or no block set (not loaded yet) nothing is followed; nor in
 * another block set than the memory's (`set`: the live one).
 */
export function followRenames(
  fields: string[],
  own: string,
  memory: GraphMemory,
  blocks: ReadonlyMap<string, LiveBlock>,
  set: string | undefined,
): Followed {
  if (!blocks.size || set === undefined) return { fields, memory, renamed: [] };
  if (memory.set !== set) return { fields, memory: remember(fields, own, memory, blocks, set), renamed: [] };
  const byNid = new Map<number, LiveBlock>();
  for (const b of blocks.values()) if (typeof b.nid === 'number') byNid.set(b.nid, b);
  const ids = new Set([...blocks.keys(), ...Object.keys(memory.blocks), ...Object.keys(memory.former)]);
  // The blocks renamed since: former id → id now. One followed before is not again: the new
  // name's fields were added then, and the user may have taken some off.
  const moves = new Map<string, string>();
  const owner = new Map(fields.map((f) => [f, ownerOf(f, own, ids)]));
  for (const b of new Set(owner.values())) {
    if (b === undefined || blocks.has(b) || moves.has(b)) continue;
    const mark = memory.blocks[b];
    const now = mark && byNid.get(mark.nid);
    if (now && now.type === mark.type && now.id !== b && memory.former[b] !== now.id) moves.set(b, now.id);
  }
  // Each new name's field goes after the last field it follows (an older name's, after several renames).
  const after = new Map<number, string>();
  const seen = new Set(fields);
  for (let i = fields.length - 1; i >= 0; i--) {
    const b = owner.get(fields[i]!);
    const to = b === undefined ? undefined : moves.get(b);
    const moved = to === undefined ? undefined : moveField(fields[i]!, own, b!, to);
    if (moved !== undefined && !seen.has(moved)) {
      seen.add(moved);
      after.set(i, moved);
    }
  }
  const out = fields.flatMap((f, i) => (after.has(i) ? [f, after.get(i)!] : [f]));
  const former = { ...memory.former };
  for (const [b, to] of moves) {
    // An older name of the block follows it too.
    for (const [old, now] of Object.entries(former)) if (now === b) former[old] = to;
    former[b] = to;
  }
  return {
    fields: out,
    memory: remember(out, own, { blocks: memory.blocks, former, set }, blocks, set),
    renamed: [...moves],
  };
}

/**
 * The memory for `fields` in block set `set`: the nid and type of each live block of `own` they
 * belong to (a block gone keeps the mark it had), and the former ids that still own a field and
 * name no live block. A memory of another block set keeps neither marks nor former ids (its nids
 * name other blocks); with no set known yet the memory stays as it is.
 */
export function remember(
  fields: string[],
  own: string,
  given: GraphMemory,
  blocks: ReadonlyMap<string, LiveBlock>,
  set: string | undefined,
): GraphMemory {
  if (set === undefined) return given;
  const memory = given.set === set ? given : emptyMemory();
  const ids = new Set([...blocks.keys(), ...Object.keys(memory.blocks), ...Object.keys(memory.former)]);
  const owners = new Set(fields.map((f) => ownerOf(f, own, ids)).filter((b): b is string => b !== undefined));
  const out: GraphMemory = { ...emptyMemory(), set };
  for (const b of owners) {
    const live = blocks.get(b);
    if (live && typeof live.nid === 'number') out.blocks[b] = { nid: live.nid, type: live.type };
    else if (memory.blocks[b]) out.blocks[b] = memory.blocks[b];
  }
  // A former id that names a block again (renamed back, or a new block took the name) is that block's.
  for (const [old, now] of Object.entries(memory.former))
    if (owners.has(old) && !blocks.has(old)) out.former[old] = now;
  return out;
}

/** The field's block, if it is a former id the graph follows: [former id, id now]. */
export function formerOf(field: string, own: string, memory: GraphMemory): [string, string] | undefined {
  const ids = new Set([...Object.keys(memory.blocks), ...Object.keys(memory.former)]);
  const b = ownerOf(field, own, ids);
  return b !== undefined && memory.former[b] !== undefined ? [b, memory.former[b]] : undefined;
}

/** `fields` without those of former id `old`. */
export function dropFormer(fields: string[], own: string, memory: GraphMemory, old: string): string[] {
  return fields.filter((f) => formerOf(f, own, memory)?.[0] !== old);
}

/**
 * How the graph draws fields (`known`: units the page knows of this controller's live blocks). A
 * former name's field is drawn as its block's: in the colour of the new name's fields, on their
 * axis, with the legend "Beer Sensor (now Fermenter 1 beer) · Value (°C)". Temperatures are
 * drawn in `display` (graph-fields.ts drawnIn), and a legend says so of one recorded in another unit.
 */
export function lookOf(
  own: string,
  memory: GraphMemory,
  known: (p: FieldParts) => string | null,
  display?: string,
): ChartLook {
  const knownNow = (p: FieldParts) =>
    known(p.controller === own && memory.former[p.block] !== undefined ? { ...p, block: memory.former[p.block]! } : p);
  return {
    label: (f) => {
      const former = formerOf(f, own, memory);
      return former
        ? `${former[0]} (now ${former[1]}) · ${fieldWords(f, knownNow, display)}`
        : legendLabel(f, own, knownNow, display);
    },
    group: (f) => {
      const former = formerOf(f, own, memory);
      const p = fieldParts(former ? moveField(f, own, ...former) : f);
      return `${p.controller}/${p.block}`;
    },
    scale: (f) => scaleOf(f, knownNow, display),
    dashed: (f) => /\/setting\[/.test(f),
  };
}
