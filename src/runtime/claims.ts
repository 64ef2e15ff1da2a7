// Claims: a driving link (PID -> output, PWM -> actuator, ...) claims its target; first come,
// first served. IO channels are claimed per channel (at a load, in the order the blocks were made). Claims are volatile, never persisted
// (settingMode is, through the block data): the drivers' updates make them, and a load (start,
// backup, rename) or a change to a driver takes them from the stored links at once (claimByLinks,
// and claimChannels for the channel a block on an IO channel names),
// as those updates would, so that no block reads as let go until the first tick, nor while
// control is off and no block runs.
import { forEachLink } from '../codec/fields.js';
import { resolveIn, type InterfaceName } from './interfaces.js';
import type { AnyBlock } from './types.js';

interface ChannelData {
  id: number;
  claimedBy: string | null;
}

export function claimedBy(block: AnyBlock): string | null {
  return (block.data as { claimedBy?: string | null }).claimedBy ?? null;
}

/** Returns true when `target` switched into claimed mode and its settingMode changed. */
export function claim(target: AnyBlock, claimer: AnyBlock): { held: boolean; modeChanged: boolean } {
  if (!('claimedBy' in target.def.fields)) return { held: false, modeChanged: false };
  const current = claimedBy(target);
  if (current !== null && current !== claimer.id) return { held: false, modeChanged: false };
  const data = target.data as { claimedBy: string | null; settingMode?: string };
  data.claimedBy = claimer.id;
  if ('settingMode' in target.def.fields && data.settingMode !== 'CLAIMED') {
    data.settingMode = 'CLAIMED';
    return { held: true, modeChanged: true };
  }
  return { held: true, modeChanged: false };
}

/**
 * Once a change is applied: a block another block still drives is in CLAIMED mode, whatever the
 * change wrote (a patch with its stored setting, settingMode STORED). Its driver's next update
 * would claim it back anyway; left STORED until then, a driver let go within that second left
 * the block on the value written, and one let go later left it with none. Looked at once the
 * whole change is applied, so a batch that writes the setting and turns its driver off (the
 * profile card's Pause) hands it over in either order. True when the mode changed.
 */
export function settleDrivenMode(block: AnyBlock): boolean {
  const data = block.data as { claimedBy?: string | null; settingMode?: string };
  if (!data.claimedBy || data.settingMode !== 'STORED' || !('settingMode' in block.def.fields)) return false;
  data.settingMode = 'CLAIMED';
  return true;
}

export function release(target: AnyBlock, claimer: AnyBlock): void {
  if (claimedBy(target) === claimer.id) (target.data as { claimedBy: string | null }).claimedBy = null;
}

export function channels(array: AnyBlock): ChannelData[] {
  return ((array.data as { channels?: ChannelData[] }).channels ?? []) as ChannelData[];
}

/**
 * The arrays on which each claimer (by id) holds channels. Channel claims are made by the update
 * context and at a load or change (claimChannels), which add them here; releasing a claimer's channels then looks at its arrays,
 * not at every block on every update. After a structural change (load, backup, rename) the
 * index is built again from every array, once.
 */
export class ChannelClaims {
  private byClaimer: Map<string, Set<AnyBlock>> | null = null;
  /** Full rebuilds since start; the tests watch it. */
  rebuilds = 0;

  constructor(private readonly all: () => Iterable<AnyBlock>) {}

  invalidate(): void {
    this.byClaimer = null;
  }

  add(claimerId: string, array: AnyBlock): void {
    const index = this.index();
    let arrays = index.get(claimerId);
    if (!arrays) index.set(claimerId, (arrays = new Set()));
    arrays.add(array);
  }

  /** Arrays on which `claimerId` may hold a channel; the caller clears and calls `settled`. */
  arraysOf(claimerId: string): Set<AnyBlock> {
    return this.index().get(claimerId) ?? new Set();
  }

  /** Let go of every channel `claimer` holds but `except`: on the arrays it may hold one on. */
  release(claimerId: string, except?: { array: AnyBlock; channel: number }): void {
    for (const b of this.arraysOf(claimerId)) {
      let holds = false;
      for (const ch of channels(b)) {
        if (ch.claimedBy !== claimerId) continue;
        if (except && except.array === b && except.channel === ch.id) holds = true;
        else ch.claimedBy = null;
      }
      if (!holds) this.settled(claimerId, b);
    }
  }

  /** Whether `claimerId` holds a channel. */
  holdsAny(claimerId: string): boolean {
    for (const b of this.arraysOf(claimerId)) if (channels(b).some((ch) => ch.claimedBy === claimerId)) return true;
    return false;
  }

  /** `array` holds no channel of `claimerId` any more. */
  settled(claimerId: string, array: AnyBlock): void {
    const arrays = this.byClaimer?.get(claimerId);
    arrays?.delete(array);
    if (arrays?.size === 0) this.byClaimer!.delete(claimerId);
  }

  private index(): Map<string, Set<AnyBlock>> {
    if (this.byClaimer) return this.byClaimer;
    this.rebuilds++;
    const index = new Map<string, Set<AnyBlock>>();
    for (const b of this.all()) {
      for (const ch of channels(b)) {
        if (ch.claimedBy === null) continue;
        let arrays = index.get(ch.claimedBy);
        if (!arrays) index.set(ch.claimedBy, (arrays = new Set()));
        arrays.add(b);
      }
    }
    return (this.byClaimer = index);
  }
}

/** True when `claimer` is enabled and still has a driving link to `target`. */
function stillDrives(claimer: AnyBlock, target: AnyBlock): boolean {
  if ((claimer.data as { enabled?: boolean }).enabled === false) return false;
  let found = false;
  forEachLink(claimer.def.fields, claimer.data, (_path, id, field) => {
    if (field.spec.drives && id === target.id) found = true;
  });
  return found;
}

/**
 * The claims `claimers` (in scheduler order: first come, first served, as in a tick) make through
 * their driving links when they next update: an enabled driver whose type says it drives now
 * (BlockTypeDef.drivesNow: a profile only once started) claims each target its link resolves to
 * (through the link's interface, as its update resolves it) that nobody holds. What a
 * driver's update does with a claim it holds and has no request for keeps it (a PID without a
 * sensor asks for nothing), so the first tick leaves what this made. `wall`: the time
 * wall-anchored progress reads (wallForProgress in types.ts), epoch ms, or null. Returns the
 * targets whose settingMode became CLAIMED.
 */
export function claimByLinks(
  claimers: Iterable<AnyBlock>,
  table: { byId(id: string): AnyBlock | undefined },
  wall: number | null,
): AnyBlock[] {
  const switched: AnyBlock[] = [];
  for (const claimer of claimers) {
    if ((claimer.data as { enabled?: boolean }).enabled === false) continue;
    if (claimer.def.drivesNow && !claimer.def.drivesNow(claimer as never, wall)) continue;
    forEachLink(claimer.def.fields, claimer.data, (_path, id, field) => {
      if (!field.spec.drives || field.spec.kind !== 'link') return;
      const target = resolveIn(table, id, field.spec.iface as InterfaceName) as AnyBlock | null;
      // Only a target nobody holds: one its driver holds already keeps the mode it has (a change
      // that writes it and lets go in one batch hands it over, settleDrivenMode).
      if (!target || claimedBy(target) !== null) return;
      if (claim(target, claimer).modeChanged) switched.push(target);
      // Claimed, nothing asked yet: a request left from an earlier claim is not this driver's
      // (blocks/shared/pipeline.ts drive() sees it held and asks anew). Due at the next tick.
      const state = target.state as { request?: unknown } | undefined;
      if (state && typeof state === 'object' && 'request' in state) state.request = null;
      target.nextUpdate = -Infinity;
    });
  }
  return switched;
}

/**
 * The IO channel claims `claimers` make when they next update: each block on a channel
 * (BlockTypeDef.channelVia) that holds none claims the channel its `hwDevice` (through that
 * interface) and `channel` name, when nobody holds it, as claimOwnChannel does. One that holds a
 * channel already keeps it until its update moves it (which first switches off the output it
 * leaves). Taken in the order the blocks were made (nid), not the scheduler's: that order follows
 * the links (a PWM made later runs before the actuator it drives, and that after a spare on its
 * channel), so with two on one channel a restart would hand it to the other one; the one made
 * first named it first, and holds it at every start. (Not so when it was moved onto the channel
 * while the other held it: that one holds it until a restart.) Returns the arrays claimed on.
 */
export function claimChannels(
  claimers: Iterable<AnyBlock>,
  table: { byId(id: string): AnyBlock | undefined },
  index: ChannelClaims,
): AnyBlock[] {
  const claimed: AnyBlock[] = [];
  for (const claimer of [...claimers].sort((a, b) => a.nid - b.nid)) {
    const via = claimer.def.channelVia;
    if (!via || index.holdsAny(claimer.id)) continue;
    const d = claimer.data as { hwDevice?: string | null; channel?: number | null };
    const array = resolveIn(table, d.hwDevice ?? null, via) as AnyBlock | null;
    const ch = array?.def.io && d.channel ? channels(array).find((c) => c.id === d.channel) : undefined;
    if (!array || !ch || ch.claimedBy !== null) continue;
    ch.claimedBy = claimer.id;
    index.add(claimer.id, array);
    claimed.push(array);
  }
  return claimed;
}

/** Drop claims whose claimer is gone, disabled, or no longer links to the target. */
export function releaseStale(blocks: Iterable<AnyBlock>, byId: (id: string) => AnyBlock | undefined): AnyBlock[] {
  const released: AnyBlock[] = [];
  for (const target of blocks) {
    const holder = claimedBy(target);
    if (holder !== null) {
      const claimer = byId(holder);
      if (!claimer || !stillDrives(claimer, target)) {
        (target.data as { claimedBy: string | null }).claimedBy = null;
        released.push(target);
      }
    }
    for (const ch of channels(target)) {
      if (ch.claimedBy !== null && !byId(ch.claimedBy)) ch.claimedBy = null;
    }
  }
  return released;
}

export interface Relation {
  source: string;
  target: string;
  claimed: boolean;
  relation: string[];
}

const SKIPPED_LINK_KEYS = new Set(['claimedBy', 'oneWireBusId', 'clients']);
const INPUT_LINK_KEYS = new Set(['inputId', 'referenceId', 'sensorId', 'analog', 'digital', 'sensors', 'hwDevice']);

/** Data-flow relations between blocks, for UIs drawing the control chain. */
export function relations(blocks: readonly AnyBlock[]): Relation[] {
  const out: Relation[] = [];
  const byId = new Map(blocks.map((b) => [b.id, b]));
  for (const b of blocks) {
    forEachLink(b.def.fields, b.data, (path, id) => {
      if (!id || path.some((p) => SKIPPED_LINK_KEYS.has(p))) return;
      const swap = path.some((p) => INPUT_LINK_KEYS.has(p));
      const source = swap ? id : b.id;
      const target = swap ? b.id : id;
      const targetBlock = byId.get(target);
      const claimed = !!targetBlock && claimedBy(targetBlock) === source;
      out.push({ source, target, claimed, relation: path });
    });
  }
  return out;
}

export interface Claim {
  source: string;
  target: string;
  intermediate: string[];
}

/** One claim per claimed block and per claimed channel, followed up to the top-level claimer. */
export function claimChains(blocks: readonly AnyBlock[]): Claim[] {
  const byId = new Map(blocks.map((b) => [b.id, b]));
  const chain = (target: string, first: string): Claim => {
    const intermediate: string[] = [];
    const seen = new Set([target]);
    let source = first;
    for (;;) {
      const next = byId.get(source);
      const up = next ? claimedBy(next) : null;
      if (!up || seen.has(up)) break;
      seen.add(source);
      intermediate.push(source);
      source = up;
    }
    return { source, target, intermediate };
  };
  const out: Claim[] = [];
  for (const b of blocks) {
    const holder = claimedBy(b);
    if (holder) out.push(chain(b.id, holder));
    for (const ch of channels(b)) if (ch.claimedBy) out.push(chain(b.id, ch.claimedBy));
  }
  return out;
}
