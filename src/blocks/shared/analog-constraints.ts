// Analog constraints (min, max, balanced), applied in that fixed order to a desired value.
import type { DataOf } from '../../codec/fields.js';
import type { UpdateContext, AnyBlock } from '../../runtime/types.js';
import type { analogConstraintsField } from './fields.js';

export type AnalogConstraints = NonNullable<DataOf<{ c: typeof analogConstraintsField }>['c']>;

/** Hook for the balanced constraint; the Balancer block registers itself here. */
export interface BalancerApi {
  request(balancer: AnyBlock, client: AnyBlock, requested: number): number | null;
}

let balancerApi: BalancerApi | null = null;
export function registerBalancer(api: BalancerApi): void {
  balancerApi = api;
}

export function applyAnalogConstraints(value: number | null, c: AnalogConstraints, owner: AnyBlock, ctx: UpdateContext): number | null {
  for (const k of ['min', 'max'] as const) if (c[k]) c[k]!.limiting = false;
  if (c.balanced) c.balanced.limiting = false;
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
  if (c.balanced?.enabled && balancerApi) {
    const balancer = ctx.resolve(c.balanced.balancerId, 'BalancerInterface');
    const granted = balancer ? balancerApi.request(balancer, owner, v) : null;
    c.balanced.granted = granted;
    if (granted !== null && v > granted) {
      v = granted;
      c.balanced.limiting = true;
    }
  }
  return v;
}
