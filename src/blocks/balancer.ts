// Balancer: shares 100 % between the analog actuators whose balanced constraint links it, e.g.
// two heating elements on one fuse (reference §5.6, §6.6). Clients register themselves by
// reporting their requests; the grants are recomputed every second.
import { f } from '../codec/fields.js';
import { defineBlock } from '../runtime/types.js';
import { rebalance, type BalancerState } from './shared/balancer-core.js';
import { nextBeat } from './shared/cadence.js';

const fields = {
  clients: f.array(
    f.object({
      id: f.link('Any', { readonly: true }),
      requested: f.number({ readonly: true }),
      granted: f.number({ readonly: true }),
    }),
    { readonly: true },
  ),
};

export const Balancer = defineBlock<typeof fields, BalancerState>({
  type: 'Balancer',
  role: 'controller',
  fields,
  implements: ['BalancerInterface'],
  description: 'Shares 100 % between balanced analog actuators',
  init: () => new Map(),
  update(block, ctx) {
    rebalance(block.state, ctx.now);
    block.data.clients = [...block.state].map(([id, c]) => ({ id, requested: c.requested, granted: c.granted }));
    return nextBeat(ctx.now, 1000);
  },
});
