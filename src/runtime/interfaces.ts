// The link interfaces: what a block that implements one offers the blocks linking to it, in its
// data and its volatile state. `ctx.resolve(id, iface)` returns the block typed by this map, and
// `defineBlock` refuses an `implements` entry the type's data or state does not satisfy, so a
// linked block is read without casts and a contract cannot be claimed without being kept.
// The runtime holds the mechanism; the contracts are the block types' own, and
// src/blocks/link-interfaces.ts adds them to InterfaceMap (declaration merging), so the runtime
// imports no block module. A program that type-checks block code must include that file (every
// tsconfig here does); without it every interface name but `Any` is a type error.
import { implementsIface, type AnyBlock } from './types.js';

/** A link interface: the data and volatile state a block offers through it. A type alias, not an
 *  interface: a linked block must still pass where any block does (AnyBlock). */
export type Contract<D, S = unknown> = { data: D; state: S };

/** Every link interface by name (the entries are in src/blocks/link-interfaces.ts). */
export interface InterfaceMap {
  /** Any block at all (Sequence instructions that name a block of any type). */
  Any: Contract<Record<string, unknown>>;
}

export type InterfaceName = keyof InterfaceMap;

/** A block resolved through `iface`: typed as the interface promises. */
export type Linked<I extends InterfaceName> = Omit<AnyBlock, 'data' | 'state'> & InterfaceMap[I];

/** The interfaces a type with data `D` and state `S` may claim (defineBlock's `implements`). */
export type ImplementableBy<D, S> = {
  [I in InterfaceName]: D extends InterfaceMap[I]['data'] ? (S extends InterfaceMap[I]['state'] ? I : never) : never;
}[InterfaceName];

/** Finds a linked block: typed as `iface` promises when it exists and implements `iface`, else null. */
export type Resolve = <I extends InterfaceName>(id: string | null | undefined, iface: I) => Linked<I> | null;

export function resolveIn(
  table: { byId(id: string): AnyBlock | undefined },
  id: string | null | undefined,
  iface: InterfaceName,
): Linked<InterfaceName> | null {
  const target = id ? table.byId(id) : undefined;
  // The one place a block is given its interface's type: defineBlock let the type claim `iface`
  // only if its data and state keep that interface's contract.
  return target && implementsIface(target.def, iface) ? (target as unknown as Linked<InterfaceName>) : null;
}
