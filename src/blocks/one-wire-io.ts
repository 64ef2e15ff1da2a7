// What DS2408 and DS2413 blocks share: an IoArray over a 1-Wire IO module's cached state, and
// the per-update refresh of `connected` and `oneWireBusId`. "Active" = latch on = pin pulled
// low; reads come from the polled pin state, writes go out on the next hardware refresh.
import { lostAt, oneWireBusBlockId, type OneWireIoKind } from '../runtime/hardware.js';
import type { AnyBlock, Data, IoArray, UpdateContext } from '../runtime/types.js';
import { nextBeat } from './shared/cadence.js';

export interface OneWireIoState {
  /** Latches this block asked for (active polarity), for the address it asked them for. */
  desired: number;
  address: string | null;
  /** The desired latches have been handed to the hardware layer (which keeps re-asserting them). */
  sent: boolean;
  /** Latches written through this block at `address` (BlockTypeDef.driven). */
  driven: number;
}

interface IoData {
  address: string;
  connected: boolean;
  oneWireBusId: string | null;
}

export const initIoState = (): OneWireIoState => ({ desired: 0, address: null, sent: false, driven: 0 });

/** The latches a DS2408 or DS2413 block drove (BlockTypeDef.driven). */
export const ioDriven = (block: AnyBlock): number => (block.state as OneWireIoState).driven;

/**
 * The latches (bit n - 1 for output n) of the channels an output (a DigitalActuator) claims:
 * left as the module is found at a start, for their claimer to write once it has read them. An
 * input's channel is not kept: its latch must be off to read. `channelLatches`: the latches one
 * channel drives.
 */
export function claimedLatches(
  block: AnyBlock,
  ctx: UpdateContext,
  channelLatches: (channel: number) => number,
): number {
  let bits = 0;
  for (const ch of (block.data as { channels?: Array<{ id: number | null; claimedBy: string | null }> }).channels ?? [])
    if (ch.id !== null && ch.claimedBy !== null && ctx.resolve(ch.claimedBy, 'ActuatorDigitalInterface'))
      bits |= channelLatches(ch.id);
  return bits;
}

export function oneWireIo(
  block: AnyBlock,
  ctx: UpdateContext,
  kind: OneWireIoKind,
  channelCount: number,
  keep: () => number,
): IoArray | null {
  const ow = ctx.hardware.services.onewire;
  if (!ow) return null;
  const d = block.data as unknown as IoData;
  const s = block.state as OneWireIoState;
  if (s.address !== d.address) {
    // Outputs that were never asked for start off.
    s.address = d.address;
    s.desired = 0;
    s.sent = false;
    s.driven = 0;
  }
  return {
    channelCount,
    read(channel) {
      const r = ow.io(d.address, kind);
      if (!r || !r.connected || channel < 1 || channel > channelCount) return null;
      return (r.pins & (1 << (channel - 1))) !== 0;
    },
    write(channel, active) {
      if (channel < 1 || channel > channelCount) return;
      const bit = 1 << (channel - 1);
      // From what the hardware holds: outputs the module lost, or that a safe state switched off,
      // stay off until their own writer asks again. Nothing held (a module found again): send;
      // nothing asked since the start, with the module read: the claimed outputs as found (the
      // other channels' claimers write theirs once they have read them), the rest off.
      const r = ow.io(d.address, kind);
      const held = r?.desired ?? null;
      const base = held ?? (r?.connected && !s.sent ? r.latches & keep() : s.desired);
      const next = active ? base | bit : base & ~bit;
      s.driven |= bit;
      if (held === null || next !== held || next !== s.desired || !s.sent) {
        s.desired = next;
        s.sent = true;
        ow.setLatches(d.address, kind, next);
      }
    },
    lostAt: (channel) => lostAt(ow.io(d.address, kind)?.lost, channel),
  };
}

export function refreshIoBlock(block: AnyBlock, ctx: UpdateContext, kind: OneWireIoKind, keep: number): number {
  const d = block.data as unknown as IoData;
  const s = block.state as OneWireIoState;
  const ow = ctx.hardware.services.onewire;
  const r = ow?.io(d.address, kind) ?? null;
  if (s.address !== d.address) {
    s.address = d.address;
    s.desired = 0;
    s.sent = false;
    s.driven = 0;
  }
  if (ow && !s.sent && r?.connected) {
    // No channel user has written yet, and the module is read: outputs nobody claims are switched
    // off, the claimed ones left as found for their claimers, unless the users of a second block
    // on the module (which a backup or an older store holds) asked already.
    s.sent = true;
    ow.offUnlessAsked(d.address, kind, keep);
  }
  d.connected = r?.connected ?? false;
  if (r) {
    const busId = oneWireBusBlockId(r.bus);
    d.oneWireBusId = ctx.resolve(busId, 'OneWireBusInterface') ? busId : null;
  }
  return nextBeat(ctx.now, 1000);
}

/** The module a DS2408 or DS2413 block names, in words (BlockTypeDef.chip); none at the default address. */
export function oneWireChip(data: Data): string | null {
  const a = data.address;
  return typeof a === 'string' && a !== NO_ADDRESS ? chipName(a) : null;
}

const NO_ADDRESS = '0000000000000000';
const chipName = (address: string) => `1-Wire module ${address}`;

/**
 * Stop using the module (the hardware layer switches its outputs off first), once the change is
 * committed and unless a block names it then (ctx.letGoOfChip).
 */
export function releaseIo(block: AnyBlock, ctx: UpdateContext, previousAddress?: unknown): void {
  const d = block.data as unknown as IoData;
  const ow = ctx.hardware.services.onewire;
  const address = previousAddress === undefined ? d.address : previousAddress;
  if (typeof address === 'string' && (previousAddress === undefined || address !== d.address))
    ctx.letGoOfChip(block, chipName(address), {
      release: () => ow?.release(address),
      // No hand-over on 1-Wire: let go (outputs off), and found again by the blocks that name it.
      handOver: () => ow?.release(address),
      outputsOff: (outputs) => ow?.outputsOff(address, outputs),
    });
}
