// Bit-level 1-Wire slave model: the ROM layer (reset/presence, Read/Match/Skip/Search/Alarm
// Search/Resume) shared by every emulated device, plus a small bit shifter for the function
// layer. Device models extend SimSlave and implement onFunctionByte.
import { makeRom, romToBytes } from '../onewire/address.js';
import type { RomAddress } from '../onewire/types.js';

export type Bit = 0 | 1;

/** What a slave needs from the segment it is plugged into. */
export interface SlaveHost {
  now(): number;
}

export interface SlaveOptions {
  /** Full ROM address; or give `serial` and the CRC is computed. */
  address?: RomAddress;
  serial?: number | bigint;
}

type RomPhase =
  | { kind: 'idle' }
  | { kind: 'command'; value: number; count: number }
  | { kind: 'readRom'; index: number }
  | { kind: 'match'; index: number }
  | { kind: 'search'; index: number; step: 0 | 1 | 2 }
  | { kind: 'function' };

let nextSerial = 0x100;

export abstract class SimSlave {
  readonly address: RomAddress;
  readonly family: number;
  /** Fault state; see corruptNextReads / corruptAlways / corruptEvery / holdDataLow. */
  readonly faults = { corruptReads: 0, zeroData: false, corruptEvery: 0 };
  private framesSent = 0;
  private pluggedIn = true;
  private host: SlaveHost | null = null;
  private phase: RomPhase = { kind: 'idle' };
  private readonly romBits: Bit[] = [];
  private resumeFlag = false;
  /** The ROM command that selected the device (0x55, 0xcc, 0xa5, 0x96...). */
  protected selectedWith = 0;
  /** Takes 0x96 + ROM as a ROM command (the DS2408's Disable Test Mode sequence). */
  protected readonly supportsTestModeCommand: boolean = false;
  // Function layer shifter
  private fnMode: 'rx' | 'tx' | 'fill' = 'rx';
  private txBits: Bit[] = [];
  private afterTx: (() => void) | null = null;
  private rxValue = 0;
  private rxCount = 0;
  /** Set by models; decides the level of read slots once nothing is queued. */
  protected fillBit: () => Bit = () => 1;
  /** DS2408/DS2413 understand Resume (0xA5); the DS18B20 does not. */
  protected readonly supportsResume: boolean = false;

  constructor(family: number, options: SlaveOptions = {}) {
    this.address = options.address ?? makeRom(family, options.serial ?? nextSerial++);
    const rom = romToBytes(this.address);
    this.family = rom[0]!;
    for (let i = 0; i < 64; i++) this.romBits.push(((rom[i >> 3]! >> (i & 7)) & 1) as Bit);
  }

  get romBytes(): Uint8Array {
    return romToBytes(this.address);
  }

  get plugged(): boolean {
    return this.pluggedIn;
  }

  /** The slave's clock (the segment's injected clock once attached). */
  now(): number {
    return this.host ? this.host.now() : Date.now();
  }

  attach(host: SlaveHost | null): void {
    this.host = host;
  }

  /** Pulls the device off the bus: no presence, no answers. */
  unplug(): void {
    this.pluggedIn = false;
    this.phase = { kind: 'idle' };
  }

  /** Plugs it back in; this powers it up again (power-on state). */
  plug(): void {
    if (this.pluggedIn) return;
    this.pluggedIn = true;
    this.phase = { kind: 'idle' };
    this.powerOn();
  }

  /** A power glitch while plugged in: the chip restarts in its power-on state. */
  powerOnReset(): void {
    this.phase = { kind: 'idle' };
    this.powerOn();
  }

  /** Garble the next `n` data frames the device sends (the true CRC no longer matches). */
  corruptNextReads(n = 1): void {
    this.faults.corruptReads = n;
  }

  corruptAlways(on = true): void {
    this.faults.corruptReads = on ? Infinity : 0;
  }

  /** A flaky bus: every `n`-th frame the device sends is garbled (0 = none). */
  corruptEvery(n: number): void {
    this.faults.corruptEvery = Math.max(0, Math.floor(n));
  }

  /** Function-phase slots read 0 (data line held low): an all-zero scratchpad whose CRC passes. */
  holdDataLow(on = true): void {
    this.faults.zeroData = on;
  }

  /** Applies the corruption fault to an outgoing frame (flips one bit of the first byte). */
  protected transmitFrame(bytes: number[]): number[] {
    this.framesSent++;
    const flaky = this.faults.corruptEvery > 0 && this.framesSent % this.faults.corruptEvery === 0;
    if (this.faults.corruptReads > 0 || flaky) {
      if (!flaky) this.faults.corruptReads--;
      const copy = bytes.slice();
      copy[0] = copy[0]! ^ 0x01;
      return copy;
    }
    return bytes;
  }

  /** Device-specific power-on state. */
  protected abstract powerOn(): void;
  /** A byte received in the function phase (after the device was selected). */
  protected abstract onFunctionByte(byte: number): void;
  /** Called when the device becomes selected (function phase starts). */
  protected onSelected(): void {}
  /** Alarm Search participation. */
  protected alarmCondition(): boolean {
    return false;
  }

  // ---- function-layer helpers for models ----

  protected send(bytes: number[], then?: () => void): void {
    for (const byte of bytes) for (let i = 0; i < 8; i++) this.txBits.push(((byte >> i) & 1) as Bit);
    this.fnMode = 'tx';
    this.afterTx = then ?? null;
  }

  protected receive(): void {
    this.fnMode = 'rx';
    this.rxValue = 0;
    this.rxCount = 0;
  }

  /** Ignore further slots until reset; read slots see `bit` (default: released, 1). */
  protected fill(bit: () => Bit = () => 1): void {
    this.fnMode = 'fill';
    this.fillBit = bit;
  }

  // ---- segment-facing bit interface ----

  /** Reset pulse; returns presence. */
  resetPulse(): boolean {
    if (!this.pluggedIn) return false;
    this.phase = { kind: 'command', value: 0, count: 0 };
    this.txBits = [];
    return true;
  }

  /** Level this slave drives in the coming slot if the master releases the line (1 = released). */
  drive(): Bit {
    if (!this.pluggedIn) return 1;
    const p = this.phase;
    switch (p.kind) {
      case 'readRom':
        return this.romBits[p.index]!;
      case 'search':
        if (p.step === 0) return this.romBits[p.index]!;
        if (p.step === 1) return (this.romBits[p.index]! ^ 1) as Bit;
        return 1;
      case 'function':
        if (this.faults.zeroData) return 0;
        if (this.fnMode === 'tx') return this.txBits[0] ?? 1;
        if (this.fnMode === 'fill') return this.fillBit();
        return 1;
      default:
        return 1;
    }
  }

  /** The level seen on the wire at the sampling point of the slot. */
  sample(level: Bit): void {
    if (!this.pluggedIn) return;
    const p = this.phase;
    switch (p.kind) {
      case 'command':
        p.value |= level << p.count;
        if (++p.count === 8) this.romCommand(p.value);
        return;
      case 'readRom':
        if (++p.index === 64) this.select(false);
        return;
      case 'match':
        if (level !== this.romBits[p.index]) {
          this.phase = { kind: 'idle' };
          return;
        }
        if (++p.index === 64) this.select(true);
        return;
      case 'search':
        if (p.step < 2) {
          p.step = (p.step + 1) as 1 | 2;
          return;
        }
        if (level !== this.romBits[p.index]) {
          this.phase = { kind: 'idle' };
          return;
        }
        p.step = 0;
        if (++p.index === 64) this.select(true);
        return;
      case 'function':
        this.functionSample(level);
        return;
      default:
        return;
    }
  }

  private romCommand(cmd: number): void {
    const resume = this.resumeFlag;
    this.resumeFlag = false;
    this.selectedWith = cmd;
    switch (cmd) {
      case 0x33:
        this.phase = { kind: 'readRom', index: 0 };
        return;
      case 0x55:
        this.phase = { kind: 'match', index: 0 };
        return;
      case 0x96:
        this.phase = this.supportsTestModeCommand ? { kind: 'match', index: 0 } : { kind: 'idle' };
        return;
      case 0xcc:
        this.select(false);
        return;
      case 0xf0:
        this.phase = { kind: 'search', index: 0, step: 0 };
        return;
      case 0xec:
        this.phase = this.alarmCondition() ? { kind: 'search', index: 0, step: 0 } : { kind: 'idle' };
        return;
      case 0xa5:
        if (this.supportsResume && resume) {
          this.select(true);
          return;
        }
        this.phase = { kind: 'idle' };
        return;
      default:
        this.phase = { kind: 'idle' };
    }
  }

  private select(addressed: boolean): void {
    this.resumeFlag = addressed;
    this.phase = { kind: 'function' };
    this.txBits = [];
    this.afterTx = null;
    this.fillBit = () => 1;
    this.receive();
    this.onSelected();
  }

  private functionSample(level: Bit): void {
    if (this.faults.zeroData) return;
    if (this.fnMode === 'tx') {
      this.txBits.shift();
      if (this.txBits.length === 0) {
        const then = this.afterTx;
        this.afterTx = null;
        this.fnMode = 'fill';
        this.fillBit = () => 1;
        then?.();
      }
      return;
    }
    if (this.fnMode === 'rx') {
      this.rxValue |= level << this.rxCount;
      if (++this.rxCount === 8) {
        const b = this.rxValue;
        this.rxValue = 0;
        this.rxCount = 0;
        this.onFunctionByte(b);
      }
    }
  }
}
