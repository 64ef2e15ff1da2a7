// What the IO hub (i2c-io-hub.ts) keeps of each chip a block asks for, and whether the chip at
// its address is the block's: the expanders share 0x20-0x27, and a PCF8574 takes every byte
// written to it as its outputs, the command byte of an MCP23017 register read too, so the wrong
// driver would switch its relays. Also what a chip starts as, and the hub's status reports of them.
import type { I2cIoChipDef, I2cIoDriver } from '../../drivers/i2c/chip-def.js';
import { I2C_IO_CHIPS, i2cIoChip } from '../../drivers/i2c/chips.js';
import { identifyAt } from '../../drivers/i2c/probe.js';
import type { I2cBus } from '../../drivers/i2c/types.js';
import type { I2cIoKind, LostOutputs } from '../runtime/hardware.js';

export interface Want {
  bus: string;
  address: number;
  kind: I2cIoKind;
  def: I2cIoChipDef | null;
  driver: I2cIoDriver | null;
  lastAsked: number;
  lastPoll: number;
  polling: Promise<void> | null;
  drive: number;
  levels: number;
  /** PWM: asked duty per channel (null = never asked), the read-back, and the frequency. */
  duties: Array<number | null>;
  readDuties: Array<number | null>;
  hz: number;
  connected: boolean;
  /** A poll has finished (good or not) since it was first asked for. */
  polled: boolean;
  pins: number;
  lastError: string | null;
  counters: { polls: number; failures: number; writes: number; verifyErrors: number; resets: number };
  /** Expanders: outputs a power-on reset took, and when; those not asked for since stay in their power-on state. */
  lost: LostOutputs | null;
  held: number;
  /** Expanders: the driven outputs that are on (whatever their level): only these are held after a reset. */
  active: number;
  /** The chip at the address was checked to be no other IO chip since it last answered. */
  checked: boolean;
  /** Another IO chip answers at the address (a PCF8574 where the block says MCP23017): never written with this driver. */
  wrongChip: I2cIoChipDef | null;
}

/** Polls between two looks at an address another IO chip answered (some 5 s of the hub's 100 ms polls). */
const WRONG_CHIP_RECHECK_POLLS = 50;

/** What a chip answered for by another IO chip is, after its address: its lastError, and the alert's text. */
export const wrongChipText = (w: Want) =>
  `is a ${w.wrongChip!.name}, not a ${w.kind}: nothing written to it (make the block a ${w.wrongChip!.name})`;

/**
 * Whether the chip at the want's address is the block's, before anything is written to it (and
 * again after it stopped answering, and every few seconds while another chip answers: a board may
 * have been swapped). Only another IO chip that the identity checks (reads only) name for sure
 * refuses it; a chip no check recognises is the block's (a check is no proof that it is missing).
 */
export async function isTheBlocksChip(w: Want, bus: I2cBus | undefined): Promise<boolean> {
  // A wrong chip is looked at again now and then: the brewer may fit the board the block names.
  if (w.wrongChip && w.counters.polls % WRONG_CHIP_RECHECK_POLLS === 0) w.checked = false;
  if (w.checked || !bus) return w.wrongChip === null;
  const found = await identifyAt(bus, w.address, I2C_IO_CHIPS).catch(() => null);
  const other = found?.status === 'found' && found.chip && found.chip.name !== w.kind ? found.chip : null;
  w.wrongChip = other?.role === 'io' ? other : null;
  w.checked = true;
  return w.wrongChip === null;
}

export const hex = (a: number) => `0x${a.toString(16).padStart(2, '0')}`;

// The hub's status reports, over its asked-for chips.
export const missingChips = (wants: Iterable<Want>) =>
  [...wants]
    .filter((w) => !w.connected)
    .map((w) => ({ bus: w.bus, address: hex(w.address), kind: w.kind, lastError: w.lastError }));

export const wrongChipsOf = (wants: Iterable<Want>) =>
  [...wants]
    .filter((w) => !w.connected && w.wrongChip !== null)
    .map((w) => ({ bus: w.bus, address: w.address, text: wrongChipText(w) }));

export const pendingChips = (wants: Iterable<Want>) =>
  [...wants].filter((w) => !w.polled).map((w) => ({ bus: w.bus, address: w.address }));

export const chipCounters = (wants: Iterable<Want>): Array<Record<string, unknown>> =>
  [...wants].map((w) => ({
    bus: w.bus,
    address: hex(w.address),
    kind: w.kind,
    connected: w.connected,
    lastError: w.lastError,
    ...w.counters,
  }));

/** The frequency a PWM driver runs at until its block says otherwise. */
const DEFAULT_HZ = 1000;

/** A chip just asked for: nothing polled, written or known of it yet. */
export function newWant(bus: string, address: number, kind: I2cIoKind, now: number): Want {
  const def = i2cIoChip(kind) ?? null;
  const channels = def?.channels ?? 0;
  return {
    bus,
    address,
    kind,
    def,
    driver: null,
    lastAsked: now,
    lastPoll: -Infinity,
    polling: null,
    drive: 0,
    levels: 0,
    duties: Array(channels).fill(null),
    readDuties: Array(channels).fill(null),
    hz: DEFAULT_HZ,
    connected: false,
    polled: false,
    pins: 0,
    lastError: null,
    counters: { polls: 0, failures: 0, writes: 0, verifyErrors: 0, resets: 0 },
    lost: null,
    held: 0,
    active: 0,
    checked: false,
    wrongChip: null,
  };
}
