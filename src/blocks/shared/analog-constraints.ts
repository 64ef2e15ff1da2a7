// Analog constraints (min, max, balanced), applied in that fixed order to a desired value
// (reference §6.4). The balanced constraint reports its request to the linked Balancer block
// and is limited to the grant the Balancer computed.
import type { DataOf } from '../../codec/fields.js';
import type { UpdateContext, AnyBlock } from '../../runtime/types.js';
import { balancerRequest } from './balancer-core.js';
import type { analogConstraintsField } from './fields.js';

export type AnalogConstraints = NonNullable<DataOf<{ c: typeof analogConstraintsField }>['c']>;

export function applyAnalogConstraints(
  value: number | null,
  c: AnalogConstraints,
  owner: AnyBlock,
  ctx: UpdateContext,
): number | null {
  for (const k of ['min', 'max'] as const) if (c[k]) c[k]!.limiting = false;
  if (c.balanced) {
    c.balanced.limiting = false;
    c.balanced.granted = null;
  }
  if (value === null) return null;
  let v = value;
  if (c.min?.enabled && v < (c.min.value ?? 0)) {
    v = c.min.value ?? 0;
    c.min.limiting = true;
  }
  if (c.max?.enabled && v > (c.max.value ?? 0)) {
    v = c.max.value ?? 0;
    c.max.limiting = true;
  }
  if (c.balanced?.enabled) {
    const balancer = ctx.resolve(c.balanced.balancerId, 'BalancerInterface');
    if (balancer) {
      const granted = balancerRequest(balancer.state, owner.id, v, ctx.now);
      c.balanced.granted = granted;
      if (v > granted) {
        v = granted;
        c.balanced.limiting = true;
      }
    }
  }
  return v;
}
