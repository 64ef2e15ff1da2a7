// Decoding and checking block data as create, write, patch and validate receive it: the type
// must be known, links must name blocks of the right interface, hardware addresses are unique.
import { complete, merge, withReadonly } from '../codec/apply.js';
import { type DecodeContext } from '../codec/decode.js';
import { type ValidationIssue } from '../codec/partial.js';
import { encodeData } from '../codec/encode.js';
import { defaultValue, type Field } from '../codec/fields.js';
import { decodeWithLegacy } from '../codec/legacy.js';
import { blockBody } from './body.js';
import type { RuntimeCore } from './core.js';
import { invalid } from './errors.js';
import { resolveIn, type Resolve } from './interfaces.js';
import { implementsIface, type AnyBlock, type BlockTypeDef, type Data } from './types.js';

export function typeOf(types: Map<string, BlockTypeDef<any, any>>, type: string): BlockTypeDef<any, any> {
  const def = types.get(type);
  if (!def) {
    throw invalid(`unknown block type '${type}'; known types: ${[...types.keys()].sort().join(', ')}`, [
      { path: 'type', message: `unknown block type '${type}'` },
    ]);
  }
  return def;
}

export function decodeBlockData(
  rt: RuntimeCore,
  def: BlockTypeDef<any, any>,
  data: unknown,
  type: string,
  self?: AnyBlock,
): Data {
  const ctx: DecodeContext = {
    prefs: rt.units,
    checkLink: (id, iface) => {
      const target = rt.table.byId(id);
      if (!target) return `block '${id}' does not exist`;
      if (!implementsIface(target.def, iface)) return `block '${id}' is a ${target.def.type}, which is not a ${iface}`;
      return null;
    },
  };
  const { value, issues } = decodeWithLegacy(def.fields, def.legacy, data, ctx);
  issues.push(...uniquenessIssues(rt, def, value, self));
  if (def.checkData && !issues.length) {
    // The data as the block will hold it (explicit nulls already reset to defaults), not the decoded input.
    const current = self?.data as Data | undefined;
    const whole = {
      ...current,
      ...(current ? merge(def.fields, current, value) : complete(def.fields, value)),
    } as Data;
    issues.push(
      ...def.checkData(whole, ((id, iface) => resolveIn(rt.table, id, iface)) as Resolve, {
        self,
        referrers: (id) => rt.links.referrers(id),
        units: rt.units,
      }),
    );
  }
  if (issues.length)
    throw invalid(`invalid ${type} data: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  return value;
}

/** Values of `unique` fields (hardware addresses) that another block already holds. */
export function uniquenessIssues(
  rt: Pick<RuntimeCore, 'table'>,
  def: BlockTypeDef<any, any>,
  given: Data,
  self: AnyBlock | undefined,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [name, field] of Object.entries(def.fields) as [string, Field][]) {
    const value = given[name];
    if (!field.unique || value === undefined || value === defaultValue(field)) continue;
    let holder: AnyBlock | undefined;
    for (const b of rt.table.values())
      if (b !== self && b.def.fields[name]?.unique && (b.data as Data)[name] === value)
        if (!holder || b.nid < holder.nid) holder = b;
    if (holder)
      issues.push({ path: `data.${name}`, message: `${String(value)} is already used by block '${holder.id}'` });
  }
  return issues;
}

/** Decode a block body as create would, without storing anything. */
export function validateBody(rt: RuntimeCore, input: unknown): { type: string; data: Record<string, unknown> } {
  const body = blockBody(input, true);
  const def = rt.typeOf(body.type);
  const self = body.id !== undefined ? rt.table.byId(body.id) : undefined;
  const value = rt.decode(def, body.data, body.type, self);
  return {
    type: def.type,
    data: encodeData(
      def.fields,
      { ...withReadonly(def.fields, undefined, complete(def.fields, value)) },
      'default',
      rt.units,
    ),
  };
}
