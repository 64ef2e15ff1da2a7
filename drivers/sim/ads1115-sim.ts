// Emulated ADS1115 / ADS1015: conversion and config registers, single-shot conversions of one
// input against GND (MUX 100..111) at the programmed gain, OS bit low while converting, the
// result clipped to full scale. Inputs are set in volts per channel.
import { ADS_CONFIG_DEFAULT, ADS_CONVERSION_MS, ADS_FULL_SCALE, type AdsChip } from '../i2c/ads1115.js';
import { RegisterSensorSim } from './i2c-sensor-sim.js';

export class Ads1115Sim extends RegisterSensorSim {
  readonly chip: AdsChip;
  /** Volts on AIN0..AIN3. */
  readonly inputs = [0, 0, 0, 0];
  config = ADS_CONFIG_DEFAULT;
  private conversion = 0;
  private readyAt = 0;
  private pending: number | null = null;
  private writeBuffer: number[] = [];

  constructor(address = 0x48, chip: AdsChip = 'ADS1115', now?: () => number) {
    super(address, now);
    this.chip = chip;
  }

  protected reset(): void {
    this.config = ADS_CONFIG_DEFAULT;
    this.conversion = 0;
    this.pending = null;
  }

  private settle(): void {
    if (this.pending !== null && this.now() >= this.readyAt) {
      this.conversion = this.pending;
      this.pending = null;
    }
  }

  private convert(): number {
    const mux = (this.config >> 12) & 7;
    const pga = Math.min(5, (this.config >> 9) & 7);
    const fs = ADS_FULL_SCALE[pga]!;
    const volts = mux >= 4 ? this.inputs[mux - 4]! : this.inputs[mux === 3 ? 2 : 0]! - this.inputs[mux === 0 ? 1 : 3]!;
    const clip = (v: number, max: number) => Math.max(-max - 1, Math.min(max, v));
    if (this.chip === 'ADS1115') return clip(Math.round((volts / fs) * 32768), 32767) & 0xffff;
    return (clip(Math.round((volts / fs) * 2048), 2047) << 4) & 0xffff;
  }

  protected override write(bytes: Uint8Array): void {
    this.writeBuffer = [];
    super.write(bytes);
    if (this.writeBuffer.length === 2 && this.pointer === 1) {
      const value = (this.writeBuffer[0]! << 8) | this.writeBuffer[1]!;
      this.settle();
      this.config = value & 0x7fff;
      if (value & 0x8000 && this.pending === null) {
        this.pending = this.convert();
        this.readyAt = this.now() + ADS_CONVERSION_MS[this.chip] * 0.85;
      }
    }
  }

  protected readRegister(register: number): number {
    this.settle();
    const word =
      (this.pointer & 3) === 0
        ? this.conversion
        : (this.pointer & 3) === 1
          ? this.config | (this.pending === null ? 0x8000 : 0)
          : 0;
    return register === this.pointer ? word >> 8 : word & 0xff;
  }

  protected writeRegister(_register: number, value: number): void {
    this.writeBuffer.push(value);
  }
}
