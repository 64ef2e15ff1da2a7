// A backup's blocks held to the rules across blocks that a create of each meets (unique hardware
// addresses, a type's checkData), against the other blocks of the backup, before a load replaces
// the current blocks with them (backup.ts).
import { complete, overlayOwned, withReadonly } from '../codec/apply.js';
import { leaveOut } from '../codec/fields.js';
import type { Partial } from '../codec/partial.js';
import type { RuntimeCore } from './core.js';
import type { AnyBlock, BlockTypeDef, Data } from './types.js';
import { dataRuleIssues } from './validation.js';

export interface RulesChecked {
  index: number;
  def: BlockTypeDef<any, any>;
  id: string;
  nid: number;
  data: Data;
  value: Partial;
  label: string;
  dropped: () => void;
}

/**
 * One block per chip (BlockTypeDef.chip) is a rule of a create, write or patch, not of a backup
 * load: a backup that holds two blocks on one chip (an I2C chip or a 1-Wire IO module) loads both
 * on it, as they were, each block keeping the links to it; the load report says so.
 */
function sharedChip(def: BlockTypeDef<any, any>, data: Data, loaded: readonly AnyBlock[]): string | null {
  const chip = def.chip?.(data) ?? null;
  const other = chip === null ? undefined : loaded.find((b) => b.def.chip?.(b.data as Data) === chip);
  if (!other) return null;
  return `${chip} is named by block '${other.id}' too; both are loaded on it, as the backup has them (a block deleted or moved away lets go of it only when no other names it)`;
}

/**
 * The blocks of a backup held to the rules across blocks that a create of each meets over REST
 * and MQTT (validation.ts dataRuleIssues: unique hardware addresses, a type's checkData such as
 * the addresses an I2C chip can have or an output on an input line), against the backup's blocks,
 * which replace the current ones. Each value these rules refuse binds the block to hardware (or is
 * a one-off command): it is left out, as a field this controller does not know is, and the block
 * loads unbound and idle with a warning naming the value and the rule, instead of being lost with
 * its settings and the links to it (a Brewblox Spark took two sensors on one address). Of two
 * blocks with one address, the first of the backup keeps it. A block that still breaks a rule
 * without those values fails.
 */
export function holdingRules<P extends RulesChecked>(
  rt: RuntimeCore,
  prepared: P[],
  say: (p: P, kind: 'fail' | 'warn', text: string) => void,
): P[] {
  // Each block as it will be loaded (its read-only values at their defaults, with those it keeps).
  const views = new Map<string, AnyBlock>();
  const view = (p: P) => {
    const data = withReadonly(p.def.fields, undefined, p.data) as Data;
    overlayOwned(p.def.fields, data, p.value);
    views.set(p.id, { id: p.id, nid: p.nid, def: p.def, data, meta: {}, state: undefined } as unknown as AnyBlock);
  };
  for (const p of prepared) if (!p.def.system) view(p);
  const table = { byId: (id: string) => views.get(id) ?? rt.systemBlockById(id) };
  const loaded: AnyBlock[] = [];
  const issuesOf = (p: P) =>
    dataRuleIssues(p.def, p.value, p.data, {
      others: loaded,
      table,
      self: undefined,
      // Who links to a block is asked only of a change to a block that exists (a tuning's start).
      referrers: () => [],
      units: rt.units,
    });
  const loading: P[] = [];
  for (const p of prepared) {
    if (!p.def.system) {
      const issues = issuesOf(p);
      if (issues.length) {
        for (const x of issues) leaveOut(p.value, x.path);
        p.data = complete(p.def.fields, p.value);
        view(p);
        const still = issuesOf(p);
        if (still.length) {
          say(p, 'fail', `${p.label} failed: ${still.map((x) => `${x.path}: ${x.message}`).join('; ')}`);
          continue;
        }
        for (const x of issues)
          say(p, 'warn', `${p.label}: field '${x.path.replace(/^data\./, '')}' dropped (${x.message})`);
      }
      const shared = sharedChip(p.def, p.data, loaded);
      if (shared) say(p, 'warn', `${p.label}: ${shared}`);
      loaded.push(views.get(p.id)!);
    }
    p.dropped();
    loading.push(p);
  }
  return loading;
}
