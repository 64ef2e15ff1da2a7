// MCP23017 16-bit I2C IO expander (addresses 0x20-0x27), register bank 0 (the power-on
// layout). Channel n (1-16) is bit n-1: port A = channels 1-8, port B = 9-16. The power-on
// state (every pin an input, IODIR = 0xFFFF) is also its safe state: a relay board that is off
// at power-up is off after safeState().
import type { I2cIoDriver, IoPoll, IoPollEvents, IoTarget } from './chip-def.js';
import type { I2cBus } from './types.js';

export const MCP23017_ADDRESSES = [0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27] as const;

export const MCP_REG = {
  IODIRA: 0x00,
  IODIRB: 0x01,
  IOCON: 0x0a,
  IOCON2: 0x0b,
  GPPUA: 0x0c,
  GPPUB: 0x0d,
  GPIOA: 0x12,
  GPIOB: 0x13,
  OLATA: 0x14,
  OLATB: 0x15,
} as const;
/** Registers in bank 0; a plain read (no command) walks through them and wraps. */
export const MCP_REGISTER_COUNT = 0x16;

export interface Mcp23017State {
  /** 1 = input. */
  iodir: number;
  /** Pin levels. */
  gpio: number;
  /** Output latches. */
  olat: number;
}

const word = (lo: number, hi: number) => (lo & 0xff) | ((hi & 0xff) << 8);

export class Mcp23017 implements I2cIoDriver {
  readonly channels = 16;
  /** Directions and latches last read back as asked; a later difference is a reset or interference. */
  private held: { iodir: number; olat: number } | null = null;
  private confirmed = false;

  constructor(
    readonly bus: I2cBus,
    readonly address: number,
  ) {}

  /** One poll: read, write the directions and latches that differ from the target, read back. */
  async poll(target: IoTarget, events: IoPollEvents): Promise<IoPoll> {
    let st = await this.read();
    const held = this.held;
    if (held && (st.iodir !== held.iodir || (st.olat & ~held.iodir & 0xffff) !== (held.olat & ~held.iodir & 0xffff))) {
      events.verifyError();
      if (this.confirmed) events.reset('directions or latches');
      this.confirmed = false;
    }
    const iodir = ~target.drive & 0xffff;
    const olat = target.levels & target.drive;
    const differs = () => st.iodir !== iodir || (st.olat & target.drive) !== olat;
    if (differs()) {
      await this.write(olat, iodir, st);
      events.wrote();
      st = await this.read();
      if (differs()) {
        events.verifyError();
        this.held = null;
        throw new Error(
          `outputs read back IODIR 0x${st.iodir.toString(16)} OLAT 0x${st.olat.toString(16)}, asked 0x${iodir.toString(16)} 0x${olat.toString(16)}`,
        );
      }
    }
    this.held = { iodir: st.iodir, olat: st.olat };
    this.confirmed = true;
    return { pins: st.gpio, duties: [] };
  }

  lost(): void {}

  private async pair(lo: number): Promise<number> {
    return word(await this.bus.readByte(this.address, lo), await this.bus.readByte(this.address, lo + 1));
  }

  /** One poll: directions, pin levels and latches (6 register reads). */
  async read(): Promise<Mcp23017State> {
    return {
      iodir: await this.pair(MCP_REG.IODIRA),
      gpio: await this.pair(MCP_REG.GPIOA),
      olat: await this.pair(MCP_REG.OLATA),
    };
  }

  /** Latches first, then directions, so that a pin turning into an output starts at its latch. Only the bytes that differ from `was` are written. */
  async write(olat: number, iodir: number, was: Pick<Mcp23017State, 'olat' | 'iodir'> | null): Promise<void> {
    const writes: Array<[number, number, number]> = [
      [MCP_REG.OLATA, olat & 0xff, was ? was.olat & 0xff : -1],
      [MCP_REG.OLATB, (olat >> 8) & 0xff, was ? (was.olat >> 8) & 0xff : -1],
      [MCP_REG.IODIRA, iodir & 0xff, was ? was.iodir & 0xff : -1],
      [MCP_REG.IODIRB, (iodir >> 8) & 0xff, was ? (was.iodir >> 8) & 0xff : -1],
    ];
    for (const [reg, value, old] of writes) if (value !== old) await this.bus.writeByte(this.address, reg, value);
  }

  /** Every pin back to an input (the power-on state); throws when the read-back disagrees. */
  async safeState(): Promise<void> {
    await this.bus.writeByte(this.address, MCP_REG.IODIRA, 0xff);
    await this.bus.writeByte(this.address, MCP_REG.IODIRB, 0xff);
    const iodir = await this.pair(MCP_REG.IODIRA);
    if (iodir !== 0xffff) throw new Error(`IODIR reads back 0x${iodir.toString(16)}, not 0xffff`);
    this.held = null;
    this.confirmed = false;
  }
}

/**
 * Which expander answers at 0x20-0x27, by plain reads only (no command byte: a PCF8574 would
 * take one as new outputs). An MCP23017 walks its register file, so 22 reads show it, rotated:
 * IOCON twice in a row with BANK = 0, and each output pin reading its latch. A PCF8574 returns
 * its port every time. All-equal reads of 0x00 fit both (an MCP23017 with all pins low outputs,
 * a PCF8574 with all pins pulled low): 'ambiguous'.
 */
export function classifyExpanderReads(reads: number[]): 'mcp23017' | 'pcf8574' | 'ambiguous' | null {
  if (reads.length !== MCP_REGISTER_COUNT) return null;
  if (reads.every((r) => r === reads[0])) return reads[0] === 0 ? 'ambiguous' : 'pcf8574';
  for (let start = 0; start < MCP_REGISTER_COUNT; start++) {
    // reads[i] is register (first + i) mod 22; find `first` so that the layout fits.
    const reg = (r: number) => reads[(r - start + MCP_REGISTER_COUNT) % MCP_REGISTER_COUNT]!;
    const iocon = reg(MCP_REG.IOCON);
    if (iocon !== reg(MCP_REG.IOCON2) || (iocon & 0x81) !== 0) continue;
    const iodir = word(reg(MCP_REG.IODIRA), reg(MCP_REG.IODIRB));
    const gpio = word(reg(MCP_REG.GPIOA), reg(MCP_REG.GPIOB));
    const olat = word(reg(MCP_REG.OLATA), reg(MCP_REG.OLATB));
    if (((gpio ^ olat) & ~iodir & 0xffff) === 0) return 'mcp23017';
  }
  return null;
}

export async function identifyExpander(
  bus: I2cBus,
  address: number,
): Promise<'mcp23017' | 'pcf8574' | 'ambiguous' | null> {
  const reads: number[] = [];
  for (let i = 0; i < MCP_REGISTER_COUNT; i++) reads.push(await bus.receiveByte(address));
  return classifyExpanderReads(reads);
}

/**
 * Power-on state for an expander that may be either chip (every pin low, so every relay on an
 * active-low board is on): IODIRA and IODIRB = 0xFF as register writes. A PCF8574 takes each
 * byte as its port, so it ends at 0xFF too; on the way its pins only leave the all-low state
 * towards high. Then the reads tell the chips apart again.
 */
export async function expanderOffEitherWay(
  bus: I2cBus,
  address: number,
): Promise<'mcp23017' | 'pcf8574' | 'ambiguous' | null> {
  await bus.writeByte(address, MCP_REG.IODIRA, 0xff);
  await bus.writeByte(address, MCP_REG.IODIRB, 0xff);
  return identifyExpander(bus, address);
}
