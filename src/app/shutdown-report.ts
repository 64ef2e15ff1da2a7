// What a stop did, in words an operator reads in the journal: one line per output driven safe
// (the block that drives it, its IO block and channel, the state) and one final summary line.
import { oneWireFamily } from '../../drivers/onewire/families.js';
import type { DrivenSafe } from '../hardware/layer.js';
import type { Logger } from '../log.js';
import type { AnyBlock } from '../runtime/types.js';

export interface SafeOutput {
  /** The actuator block on the channel, if any. */
  block: string | null;
  /** The IO block (GpioPins, a 1-Wire IO module's), or the device when no block holds it. */
  io: string;
  channel: number;
  state: 'on' | 'off';
}

function actuatorOn(blocks: readonly AnyBlock[], io: string, channel: number): string | null {
  const b = blocks.find(
    (x) =>
      x.def.type === 'DigitalActuator' &&
      (x.data as { hwDevice?: unknown }).hwDevice === io &&
      (x.data as { channel?: unknown }).channel === channel,
  );
  return b?.id ?? null;
}

/** Maps the driven outputs to the blocks that name them. */
export function safeOutputs(driven: DrivenSafe, blocks: readonly AnyBlock[]): SafeOutput[] {
  const out: SafeOutput[] = [];
  const pins = blocks.find((b) => b.def.type === 'GpioPins');
  const lines = (pins?.data as { lines?: Array<{ channel: number; name: string }> } | undefined)?.lines ?? [];
  for (const g of driven.gpio) {
    const channel = lines.find((l) => l.name === g.name)?.channel;
    const io = pins && channel !== undefined ? pins.id : `GPIO "${g.name}" (line ${g.line})`;
    out.push({
      block: channel !== undefined ? actuatorOn(blocks, io, channel) : null,
      io,
      channel: channel ?? g.line,
      state: g.active ? 'on' : 'off',
    });
  }
  for (const m of driven.io) {
    // A 1-Wire IO module's block type is named as its family (DS2408).
    const holder = blocks.find((b) => (b.data as { address?: unknown }).address === m.address && b.def.type === m.kind);
    const io = holder?.id ?? `${m.kind} ${m.address}`;
    const family = oneWireFamily(m.kind);
    const channels = family?.kind === 'io' ? family.channels : 0;
    for (let channel = 1; channel <= channels; channel++)
      out.push({ block: holder ? actuatorOn(blocks, io, channel) : null, io, channel, state: 'off' });
  }
  return out;
}

export function logSafeOutputs(log: Logger, outputs: SafeOutput[]): void {
  for (const o of outputs) {
    log.info(
      { block: o.block, io: o.io, channel: o.channel, state: o.state },
      `output safe: ${o.block ? `"${o.block}" on ` : ''}"${o.io}" channel ${o.channel} ${o.state}`,
    );
  }
}

export function stoppedLine(outputs: number, offlinePublished: boolean): string {
  return `stopped: ${outputs} outputs safe, state offline ${offlinePublished ? 'published' : 'not published (MQTT not connected)'}, database closed`;
}

/** The summary of a stop before this service drove any output (a start that failed, e.g. on a busy port). */
export const STOPPED_UNTOUCHED = 'stopped before control started: outputs not touched, database closed';
