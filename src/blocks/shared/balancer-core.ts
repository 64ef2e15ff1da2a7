// The Balancer's bookkeeping (reference §6.6): balanced analog constraints report what they
// request; grants share 100 % between the clients. Headroom is spread evenly, so a request
// below its fair share is never limited; an over-subscription scales every request down.

export const BALANCER_BUDGET = 100;
/** A client that stopped reporting for this long (ms) is dropped (deleted, disabled, relinked). */
const STALE_MS = 3000;

export interface BalancerClient {
  requested: number;
  granted: number;
  seenAt: number;
}

export type BalancerState = Map<string, BalancerClient>;

/** Record a client's request; returns its current grant (computed at once for a new client). */
export function balancerRequest(state: BalancerState, clientId: string, requested: number, now: number): number {
  const known = state.get(clientId);
  if (known) {
    known.requested = requested;
    known.seenAt = now;
    return known.granted;
  }
  state.set(clientId, { requested, granted: requested, seenAt: now });
  rebalance(state, now);
  return state.get(clientId)!.granted;
}

export function rebalance(state: BalancerState, now: number): void {
  for (const [id, c] of state) if (now - c.seenAt > STALE_MS) state.delete(id);
  if (state.size === 0) return;
  let total = 0;
  for (const c of state.values()) total += Math.max(0, c.requested);
  const spare = (BALANCER_BUDGET - total) / state.size;
  for (const c of state.values()) {
    const r = Math.max(0, c.requested);
    c.granted = total <= BALANCER_BUDGET ? r + spare : (r * BALANCER_BUDGET) / total;
  }
}
