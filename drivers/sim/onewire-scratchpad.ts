// What the emulated chips with a DS18B20-style scratchpad (DS18B20, MAX31850) share: 8 bytes of
// RAM brought up to date by the chip's own settle() (a finished conversion), read back with a real
// CRC, and sent to a master with the bus faults of SimSlave applied.
import { crc8 } from '../onewire/crc.js';
import { SimSlave } from './onewire-slave.js';

export abstract class ScratchpadSlave extends SimSlave {
  protected ram: number[] = [];

  /** Bring `ram` up to date with the chip's clock (a conversion that has finished). */
  protected abstract settle(): void;

  /** The 9 scratchpad bytes with their CRC, as the chip holds them (no faults applied). */
  scratchpad(): number[] {
    this.settle();
    const bytes = this.ram.slice(0, 8);
    bytes.push(crc8(bytes));
    return bytes;
  }

  /** The scratchpad as it would arrive at a master now: corruption and held-low faults applied. */
  readScratchpadFrame(): number[] {
    if (this.faults.zeroData) return new Array(9).fill(0);
    return this.transmitFrame(this.scratchpad());
  }
}
