// OneWireBus over any OneWireMaster: the device protocols plus retries and bus serialisation.
import { afterDs2408PowerOn, DS2408_PORL, readDs2408Registers, ds2408Active, writeDs2408Latches } from './ds2408.js';
import { decodeDs2413, readDs2413Status, writeDs2413Latches } from './ds2413.js';
import {
  configureDs18b20,
  convertAll,
  PowerOnResetError,
  readScratchpad,
  temperatureFromScratchpad,
} from './ds18b20.js';
import { decodeFamily3b, type Max31850Reading } from './max31850.js';
import { searchRoms } from './search.js';
import { SerialLock } from './serial-lock.js';
import { OneWireError, type OneWireBus, type OneWireMaster, type RomAddress } from './types.js';

export interface ProtocolBusOptions {
  kind: 'ds2482' | 'ds2480b';
  /** Extra attempts after a CRC failure on reads. Default 3. */
  crcRetries?: number;
  /** Attempts for latch writes. Default 3. */
  writeTries?: number;
}

export interface ProtocolBusStats {
  /** CRC failures that a retry absorbed. */
  crcRetries: number;
  /** Scratchpads that showed a power-on reset (85 degC / lost TH marker), and DS2408s showing PORL. */
  powerOnResets: number;
  /** Successful DS18B20 (re)configurations. */
  configured: number;
}

function isCode(e: unknown, ...codes: string[]): boolean {
  return e instanceof OneWireError && codes.includes(e.code);
}

export class ProtocolBus implements OneWireBus {
  readonly name: string;
  readonly kind: 'ds2482' | 'ds2480b';
  readonly stats: ProtocolBusStats = { crcRetries: 0, powerOnResets: 0, configured: 0 };
  private readonly crcRetries: number;
  private readonly writeTries: number;
  private readonly markers = new Map<RomAddress, number>();
  private readonly lock = new SerialLock();

  constructor(
    readonly master: OneWireMaster,
    options: ProtocolBusOptions,
  ) {
    this.name = master.name;
    this.kind = options.kind;
    this.crcRetries = options.crcRetries ?? 3;
    this.writeTries = options.writeTries ?? 3;
  }

  /** Runs `job` with exclusive use of the master (for callers that need several raw transactions). */
  exclusive<T>(job: (master: OneWireMaster) => Promise<T>): Promise<T> {
    return this.lock.run(() => job(this.master));
  }

  search(): Promise<RomAddress[]> {
    return this.lock.run(() => searchRoms(this.master));
  }

  convertAll(): Promise<void> {
    return this.lock.run(() => convertAll(this.master));
  }

  private async withCrcRetry<T>(read: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await read();
      } catch (e) {
        if (isCode(e, 'CRC') && attempt < this.crcRetries) {
          this.stats.crcRetries++;
          continue;
        }
        throw e;
      }
    }
  }

  private async configure(address: RomAddress): Promise<boolean> {
    try {
      const marker = await this.withCrcRetry(() => configureDs18b20(this.master, address));
      this.markers.set(address, marker);
      this.stats.configured++;
      return true;
    } catch {
      this.markers.delete(address);
      return false;
    }
  }

  readTemperature(address: RomAddress): Promise<number> {
    return this.lock.run(async () => {
      const bytes = await this.withCrcRetry(() => readScratchpad(this.master, address));
      const marker = this.markers.get(address) ?? null;
      let value: number;
      try {
        value = temperatureFromScratchpad(bytes, marker, address);
      } catch (e) {
        if (e instanceof PowerOnResetError) {
          this.stats.powerOnResets++;
          this.markers.delete(address);
          await this.configure(address);
        }
        throw e;
      }
      if (marker === null) await this.configure(address);
      return value;
    });
  }

  /** MAX31850/DS1825: the same scratchpad read (with CRC retries), its own decoding; nothing to configure. */
  readMax31850(address: RomAddress): Promise<Max31850Reading> {
    return this.lock.run(async () =>
      decodeFamily3b(await this.withCrcRetry(() => readScratchpad(this.master, address)), address),
    );
  }

  /** Forget what is known about a sensor's configuration (it will be configured again on next read). */
  forget(address: RomAddress): void {
    this.markers.delete(address);
  }

  /** A chip that powered up since it was last read is taken out of P0's test mode first (ds2408.ts). */
  readDs2408(address: RomAddress): Promise<{ pins: number; latches: number }> {
    return this.lock.run(async () => {
      const regs = await this.withCrcRetry(() => readDs2408Registers(this.master, address));
      if (regs.controlStatus & DS2408_PORL) {
        this.stats.powerOnResets++;
        await afterDs2408PowerOn(this.master, address, regs.controlStatus);
      }
      return ds2408Active(regs);
    });
  }

  private async withWriteRetry(write: () => Promise<unknown>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await write();
        return;
      } catch (e) {
        if (attempt >= this.writeTries || isCode(e, 'SHORT', 'NO_PRESENCE')) throw e;
      }
    }
  }

  writeDs2408(address: RomAddress, latches: number): Promise<void> {
    return this.lock.run(() => this.withWriteRetry(() => writeDs2408Latches(this.master, address, latches)));
  }

  readDs2413(address: RomAddress): Promise<{ pins: number; latches: number }> {
    return this.lock.run(async () =>
      decodeDs2413(await this.withCrcRetry(() => readDs2413Status(this.master, address))),
    );
  }

  writeDs2413(address: RomAddress, latches: number): Promise<void> {
    return this.lock.run(() => this.withWriteRetry(() => writeDs2413Latches(this.master, address, latches)));
  }

  async close(): Promise<void> {
    await this.lock.run(async () => {
      await this.master.close?.();
    });
  }
}
