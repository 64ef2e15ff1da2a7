// Decoding and checking block data as create, write, patch and validate receive it: the type
// must be known, links must name blocks of the right interface, hardware addresses are unique.
import { issuesText } from '../shared/json.js';
import { complete, merge, withReadonly } from '../codec/apply.js';
import { type DecodeContext } from '../codec/decode.js';
import { type ValidationIssue } from '../codec/partial.js';
import { encodeData } from '../codec/encode.js';
import { defaultValue, type Field } from '../codec/fields.js';
import { decodeWithLegacy } from '../codec/legacy.js';
import { quotedText } from '../../drivers/quoted-text.js';
import { blockBody, MAX_ID_LENGTH } from './body.js';
import type { RuntimeCore } from './core.js';
import { invalid } from './errors.js';
import { resolveIn, type Resolve } from './interfaces.js';
import { implementsIface, type AnyBlock, type BlockTypeDef, type Data } from './types.js';
import type { UnitPrefs } from '../codec/units.js';

export function typeOf(types: Map<string, BlockTypeDef<any, any>>, type: string): BlockTypeDef<any, any> {
  const def = types.get(type);
  if (!def) {
    const named = quotedText(type);
    throw invalid(`unknown block type '${named}'; known types: ${[...types.keys()].sort().join(', ')}`, [
      { path: 'type', message: `unknown block type '${named}'` },
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
      if (!target) return `block '${quotedText(id, MAX_ID_LENGTH)}' does not exist`;
      if (!implementsIface(target.def, iface)) return `block '${id}' is a ${target.def.type}, which is not a ${iface}`;
      return null;
    },
  };
  const { value, issues } = decodeWithLegacy(def.fields, def.legacy, data, ctx);
  const others = {
    *[Symbol.iterator]() {
      for (const b of rt.table.values()) if (b !== self) yield b;
    },
  };
  if (issues.length) issues.push(...uniquenessIssues(def, value, others));
  else {
    // The data as the block will hold it (explicit nulls already reset to defaults), not the decoded input.
    const current = self?.data as Data | undefined;
    const whole = {
      ...current,
      ...(current ? merge(def.fields, current, value) : complete(def.fields, value)),
    } as Data;
    issues.push(
      ...dataRuleIssues(def, value, whole, {
        others,
        table: rt.table,
        self,
        referrers: (id) => rt.links.referrers(id),
        units: rt.units,
      }),
    );
    if (!issues.length) issues.push(...chipIssues(def, whole, self, others));
  }
  if (issues.length) throw invalid(`invalid ${type} data: ${issuesText(issues)}`, issues);
  return value;
}

/** A block as the rules across blocks see it: in the table, or in a backup being loaded. */
export type RuleBlock = Pick<AnyBlock, 'id' | 'nid' | 'def' | 'data'>;

/** What the rules across blocks see besides the block's data. */
export interface RuleContext {
  /** Every other block (the holders of unique values). */
  others: Iterable<RuleBlock>;
  /** Where links resolve. */
  table: { byId(id: string): AnyBlock | undefined };
  /** The block before the change; undefined on create (and for every block of a backup). */
  self: AnyBlock | undefined;
  referrers(id: string): readonly AnyBlock[];
  units: UnitPrefs;
}

/**
 * The rules a block's data keeps that decoding one value cannot see: unique values (hardware
 * addresses) and the type's own checkData (an I2C chip's addresses, an output on an input line).
 * One place for create, write and patch (REST and MQTT) and for each block of a backup load.
 * `given`: the decoded input; `whole`: the data the block will hold.
 */
export function dataRuleIssues(
  def: BlockTypeDef<any, any>,
  given: Data,
  whole: Data,
  ctx: RuleContext,
): ValidationIssue[] {
  const issues = uniquenessIssues(def, given, ctx.others);
  if (def.checkData && !issues.length)
    issues.push(
      ...def.checkData(whole, ((id, iface) => resolveIn(ctx.table, id, iface)) as Resolve, {
        self: ctx.self,
        referrers: ctx.referrers,
        units: ctx.units,
      }),
    );
  return issues;
}

/** Values of `unique` fields (hardware addresses) that another block already holds (the one of lowest nid is named). */
function uniquenessIssues(def: BlockTypeDef<any, any>, given: Data, others: Iterable<RuleBlock>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [name, field] of Object.entries(def.fields) as [string, Field][]) {
    const value = given[name];
    if (!field.unique || value === undefined || value === defaultValue(field)) continue;
    let holder: RuleBlock | undefined;
    for (const b of others)
      if (b.def.fields[name]?.unique && (b.data as Data)[name] === value) if (!holder || b.nid < holder.nid) holder = b;
    if (holder)
      issues.push({ path: `data.${name}`, message: `${String(value)} is already used by block '${holder.id}'` });
  }
  return issues;
}

/**
 * One block per chip (BlockTypeDef.chip): a change that puts the block on a chip another block
 * names is refused, naming that block (the one of lowest nid). A block that names its chip
 * already may keep it, beside a second block on it that a backup or an older store holds. Not a
 * rule of a backup load (dataRuleIssues), which keeps such a pair working as it was.
 */
function chipIssues(
  def: BlockTypeDef<any, any>,
  whole: Data,
  self: AnyBlock | undefined,
  others: Iterable<RuleBlock>,
): ValidationIssue[] {
  const chip = def.chip?.(whole) ?? null;
  if (chip === null || (self && self.def.chip?.(self.data as Data) === chip)) return [];
  let holder: RuleBlock | undefined;
  for (const b of others) if (b.def.chip?.(b.data as Data) === chip) if (!holder || b.nid < holder.nid) holder = b;
  return holder ? [{ path: 'data.address', message: `${chip} is already used by block '${holder.id}'` }] : [];
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
