// Emulated DS18B20: scratchpad with real CRC, EEPROM TH/TL/config, resolution, conversion time
// against the segment clock, power-on 85 degC scratchpad.
import { FAMILY } from '../onewire/types.js';
import { type Bit, type SlaveOptions } from './onewire-slave.js';
import { ScratchpadSlave } from './onewire-scratchpad.js';

export interface SimDs18b20Options extends SlaveOptions {
  /** Initial temperature of the sensed medium, degC. Default 20. */
  temperature?: number;
  /** EEPROM contents; defaults are the factory values TH 75, TL 70, 12-bit. */
  eepromTh?: number;
  eepromTl?: number;
  eepromConfig?: number;
  /** 12-bit conversion time (lower resolutions scale down). Default 750 ms. */
  conversionMs?: number;
  /** VDD tied to GND: powered from the data line (Read Power Supply answers 0). Default false. */
  parasite?: boolean;
}

function toByte(n: number): number {
  return n & 0xff;
}

export class SimDs18b20 extends ScratchpadSlave {
  /** Temperature of the medium the probe sits in; the thermal plant sets this. */
  temperature: number;
  readonly eeprom: { th: number; tl: number; config: number };
  readonly conversionMs: number;
  /** Completed conversions (diagnostics for tests). */
  conversions = 0;
  /** Powered from the data line (VDD to GND). */
  readonly parasite: boolean;
  /**
   * Too little power to convert (parasite power without a strong pull-up, a broken VDD wire):
   * every conversion ends with the scratchpad still at its power-on 85 degC.
   */
  stuckAtPowerOn = false;
  private conversionsSincePowerOn = 0;
  private convertingUntil: number | null = null;
  private step: 'command' | 'writeScratchpad' = 'command';
  private written: number[] = [];

  constructor(options: SimDs18b20Options = {}) {
    super(FAMILY.DS18B20, options);
    this.temperature = options.temperature ?? 20;
    this.eeprom = {
      th: toByte(options.eepromTh ?? 75),
      tl: toByte(options.eepromTl ?? 70),
      config: (options.eepromConfig ?? 0x7f) & 0x7f,
    };
    this.conversionMs = options.conversionMs ?? 750;
    this.parasite = options.parasite ?? false;
    this.powerOn();
  }

  setTemperature(degC: number): void {
    this.temperature = degC;
  }

  get resolutionBits(): number {
    return 9 + ((this.ram[4]! >> 5) & 3);
  }

  get converting(): boolean {
    this.settle();
    return this.convertingUntil !== null;
  }

  /** True from power-on until the first completed conversion (scratchpad holds 85 degC). */
  get powerOnValue(): boolean {
    this.settle();
    return this.conversionsSincePowerOn === 0;
  }

  protected powerOn(): void {
    this.ram = [0x50, 0x05, this.eeprom.th, this.eeprom.tl, this.eeprom.config | 0x1f, 0xff, 0x0c, 0x10];
    this.convertingUntil = null;
    this.conversionsSincePowerOn = 0;
    this.step = 'command';
  }

  private conversionTime(): number {
    return this.conversionMs / (1 << (12 - this.resolutionBits));
  }

  protected settle(): void {
    if (this.convertingUntil !== null && this.now() >= this.convertingUntil) this.finishConversion();
  }

  private finishConversion(): void {
    this.convertingUntil = null;
    if (this.stuckAtPowerOn) {
      this.powerOn();
      return;
    }
    const t = Math.max(-55, Math.min(125, this.temperature));
    let raw = Math.round(t * 16);
    raw &= ~((1 << (12 - this.resolutionBits)) - 1);
    raw &= 0xffff;
    this.ram[0] = raw & 0xff;
    this.ram[1] = raw >> 8;
    this.ram[6] = 0x10 - (raw & 0x0f);
    this.conversions++;
    this.conversionsSincePowerOn++;
  }

  /** Completes a conversion immediately (what the kernel's blocking w1_slave read amounts to). */
  convertNow(): void {
    this.finishConversion();
  }

  protected override alarmCondition(): boolean {
    this.settle();
    const raw = (this.ram[1]! << 8) | this.ram[0]!;
    const t = Math.trunc((raw & 0x8000 ? raw - 0x10000 : raw) / 16);
    const th = this.ram[2]! & 0x80 ? this.ram[2]! - 256 : this.ram[2]!;
    const tl = this.ram[3]! & 0x80 ? this.ram[3]! - 256 : this.ram[3]!;
    return t >= th || t <= tl;
  }

  protected override onSelected(): void {
    this.step = 'command';
    this.written = [];
  }

  protected onFunctionByte(byte: number): void {
    if (this.step === 'writeScratchpad') {
      this.written.push(byte);
      if (this.written.length === 3) {
        this.ram[2] = this.written[0]!;
        this.ram[3] = this.written[1]!;
        this.ram[4] = (this.written[2]! & 0x60) | 0x1f;
        this.step = 'command';
        this.fill();
      }
      return;
    }
    switch (byte) {
      case 0x44:
        this.settle();
        this.convertingUntil = this.now() + this.conversionTime();
        // Read slots return 0 while converting, 1 when done.
        this.fill((): Bit => (this.converting ? 0 : 1));
        return;
      case 0xbe:
        this.send(this.transmitFrame(this.scratchpad()));
        return;
      case 0x4e:
        this.step = 'writeScratchpad';
        this.written = [];
        return;
      case 0x48:
        this.eeprom.th = this.ram[2]!;
        this.eeprom.tl = this.ram[3]!;
        this.eeprom.config = this.ram[4]! & 0x7f;
        this.fill();
        return;
      case 0xb8:
        this.ram[2] = this.eeprom.th;
        this.ram[3] = this.eeprom.tl;
        this.ram[4] = this.eeprom.config | 0x1f;
        this.fill(); // recall is instantaneous here: read slots report done (1)
        return;
      case 0xb4:
        // Read Power Supply: a parasite-powered device pulls the read slot low.
        this.fill((): Bit => (this.parasite ? 0 : 1));
        return;
      default:
        this.fill();
    }
  }
}
