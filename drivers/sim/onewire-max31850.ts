// Emulated MAX31850 (family 0x3B): Convert T against the segment clock, Read Scratchpad with a
// real CRC, AD3..AD0 pins in the configuration byte, and the three thermocouple faults. Faults
// set the chip's fault bits; like the chip, the temperature bytes then hold no usable value (here
// the last medium temperature stays in them, which is what makes a reader that ignores the fault
// bits look plausible and wrong). CRC errors and a held-low line come from SimSlave.
import { FAULT_BITS, encodeMax31850, MAX31850_CONVERSION_MS, type ThermocoupleFault } from '../onewire/max31850.js';
import { FAMILY } from '../onewire/types.js';
import { type Bit, type SlaveOptions } from './onewire-slave.js';
import { ScratchpadSlave } from './onewire-scratchpad.js';

export type SimThermocoupleFault = Exclude<ThermocoupleFault, 'fault bit without detail'>;

export interface SimMax31850Options extends SlaveOptions {
  /** Hot-junction temperature, degC. Default 20. */
  temperature?: number;
  /** Chip (cold-junction) temperature, degC. Default 25. */
  coldJunction?: number;
  /** AD3..AD0 pin levels, 0..15. Default 0. */
  addressPins?: number;
  conversionMs?: number;
}

export class SimMax31850 extends ScratchpadSlave {
  temperature: number;
  coldJunction: number;
  readonly addressPins: number;
  readonly conversionMs: number;
  /** The thermocouple fault the next conversion finds; null = a good thermocouple. */
  thermocoupleFault: SimThermocoupleFault | null = null;
  conversions = 0;
  private convertingUntil: number | null = null;

  constructor(options: SimMax31850Options = {}) {
    super(FAMILY.MAX31850, options);
    this.temperature = options.temperature ?? 20;
    this.coldJunction = options.coldJunction ?? 25;
    this.addressPins = (options.addressPins ?? 0) & 0x0f;
    this.conversionMs = options.conversionMs ?? MAX31850_CONVERSION_MS;
    this.powerOn();
  }

  setTemperature(degC: number): void {
    this.temperature = degC;
  }

  setFault(fault: SimThermocoupleFault | null): void {
    this.thermocoupleFault = fault;
  }

  protected powerOn(): void {
    // Registers read 0 degC until the first conversion.
    this.ram = encodeMax31850(0, 0, 0, this.addressPins);
    this.convertingUntil = null;
  }

  protected settle(): void {
    if (this.convertingUntil !== null && this.now() >= this.convertingUntil) this.convertNow();
  }

  /** Completes a conversion immediately (the kernel's blocking w1_slave read, a bulk trigger). */
  convertNow(): void {
    this.convertingUntil = null;
    const bit = FAULT_BITS.find(([, name]) => name === this.thermocoupleFault)?.[0] ?? 0;
    this.ram = encodeMax31850(this.temperature, this.coldJunction, bit, this.addressPins);
    this.conversions++;
  }

  get converting(): boolean {
    this.settle();
    return this.convertingUntil !== null;
  }

  protected onFunctionByte(byte: number): void {
    switch (byte) {
      case 0x44:
        this.settle();
        this.convertingUntil = this.now() + this.conversionMs;
        this.fill((): Bit => (this.converting ? 0 : 1));
        return;
      case 0xbe:
        this.send(this.transmitFrame(this.scratchpad()));
        return;
      case 0xb4:
        this.fill(); // externally powered
        return;
      default:
        this.fill();
    }
  }
}
