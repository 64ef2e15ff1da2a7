// Register-level MCP23017 (bank 0): IODIR, IPOL, GPPU, IOCON (mirrored at 0x0A/0x0B), GPIO,
// OLAT. The address pointer advances after each byte and wraps after 0x15, so plain reads walk
// the register file. Pin levels: outputs follow OLAT; inputs read `external` (what the outside
// pulls them to), else high with the pull-up, else high (a floating pin on a relay board's
// pull-up).
import { MCP_REG, MCP_REGISTER_COUNT } from '../i2c/mcp23017.js';
import { SimI2cChip } from './i2c-register-sim.js';

export class SimMcp23017 extends SimI2cChip {
  readonly regs = new Uint8Array(MCP_REGISTER_COUNT);
  /** Levels the outside world drives on input pins (bit set = high); null bits float high. */
  external = 0xffff;
  private pointer = 0;

  constructor(address: number) {
    super(address);
    this.reset();
  }

  protected reset(): void {
    this.regs.fill(0);
    this.regs[MCP_REG.IODIRA] = 0xff;
    this.regs[MCP_REG.IODIRB] = 0xff;
    this.pointer = 0;
  }

  get iodir(): number {
    return this.regs[MCP_REG.IODIRA]! | (this.regs[MCP_REG.IODIRB]! << 8);
  }

  get olat(): number {
    return this.regs[MCP_REG.OLATA]! | (this.regs[MCP_REG.OLATB]! << 8);
  }

  /** Pin levels (bit set = high). */
  pins(): number {
    return ((this.olat & ~this.iodir) | (this.external & this.iodir)) & 0xffff;
  }

  loadOn(channel: number, activeLow: boolean): boolean {
    const high = (this.pins() & (1 << (channel - 1))) !== 0;
    return this.plugged && high !== activeLow;
  }

  private readRegister(reg: number): number {
    if (reg === MCP_REG.GPIOA) return this.pins() & 0xff;
    if (reg === MCP_REG.GPIOB) return this.pins() >> 8;
    return this.regs[reg]!;
  }

  private writeRegister(reg: number, value: number): void {
    if (reg === MCP_REG.IOCON || reg === MCP_REG.IOCON2) {
      // One register at two addresses; BANK = 1 would remap everything: not emulated, refused.
      value &= 0x7e;
      this.regs[MCP_REG.IOCON] = value;
      this.regs[MCP_REG.IOCON2] = value;
    } else if (reg === MCP_REG.GPIOA || reg === MCP_REG.GPIOB) {
      this.regs[reg + 2] = value; // a write to GPIO writes OLAT
    } else {
      this.regs[reg] = value;
    }
  }

  private advance(): void {
    this.pointer = (this.pointer + 1) % MCP_REGISTER_COUNT;
  }

  sendByte(byte: number): void {
    this.transaction();
    this.pointer = byte % MCP_REGISTER_COUNT;
  }

  writeByte(command: number, byte: number): void {
    this.transaction();
    this.pointer = command % MCP_REGISTER_COUNT;
    this.writeRegister(this.pointer, byte);
    this.advance();
  }

  receiveByte(): number {
    this.transaction();
    const v = this.readRegister(this.pointer);
    this.advance();
    return v;
  }

  readByte(command: number): number {
    this.transaction();
    this.pointer = command % MCP_REGISTER_COUNT;
    const v = this.readRegister(this.pointer);
    this.advance();
    return v;
  }
}
