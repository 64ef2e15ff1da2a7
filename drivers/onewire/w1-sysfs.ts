// OneWireBus over the Linux kernel w1 subsystem (w1-gpio or the kernel ds2482 driver), used at
// device level through sysfs files. The kernel does ROM search, conversion and CRC checking;
// this adds the rejections the kernel does not make by default (all-zero scratchpad, 85 degC
// power-on value) and maps file-level failures to OneWireError codes.
import { closeSync, constants as fsc, openSync, read, write } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isKernelSlaveName, kernelNameToRom, romFamily, romToKernelName } from './address.js';
import { crc8 } from './crc.js';
import { ds2408ControlStatusValid } from './ds2408.js';
import { decodeDs2413, ds2413StatusValid } from './ds2413.js';
import { checkPowerOnSignature, PowerOnResetError } from './ds18b20.js';
import { decodeFamily3b, MAX31850_FAMILY, type Max31850Reading } from './max31850.js';
import { OneWireError, type OneWireBus, type RomAddress } from './types.js';

export const W1_DEFAULT_ROOT = '/sys/bus/w1/devices';

export interface W1SlaveReading {
  /** The 9 bytes of the current read (line 1). */
  bytes: number[];
  /** The CRC byte the kernel computed over bytes 0..7. */
  crc: number;
  crcOk: boolean;
  /** Last CRC-valid bytes the driver kept (line 2). */
  lastGood: number[];
  millidegrees: number;
}

const LINE1 = /^((?:[0-9a-f]{2} ){9}): crc=([0-9a-f]{2}) (YES|NO)$/i;
const LINE2 = /^((?:[0-9a-f]{2} ){9})t=(-?\d+)$/i;

function hexBytes(s: string): number[] {
  return s
    .trim()
    .split(/\s+/)
    .map((h) => parseInt(h, 16));
}

/** Parses the two-line `w1_slave` format. Empty text (the kernel's way to report a failed read) is an IO error. */
export function parseW1Slave(text: string, who = 'w1_slave'): W1SlaveReading {
  if (text.trim() === '') throw new OneWireError('IO', `${who}: empty read (kernel reported a failed read)`);
  const lines = text.split('\n').filter((l) => l.length > 0);
  const m1 = lines[0] ? LINE1.exec(lines[0]) : null;
  const m2 = lines[1] ? LINE2.exec(lines[1]) : null;
  if (!m1 || !m2)
    throw new OneWireError('INVALID_DATA', `${who}: unexpected format: ${JSON.stringify(text.slice(0, 120))}`);
  return {
    bytes: hexBytes(m1[1]!),
    crc: parseInt(m1[2]!, 16),
    crcOk: m1[3]!.toUpperCase() === 'YES',
    lastGood: hexBytes(m2[1]!),
    millidegrees: parseInt(m2[2]!, 10),
  };
}

/** degC from `w1_slave` text, with the checks the kernel leaves out. */
export function temperatureFromW1Slave(text: string, who = 'w1_slave'): number {
  const r = parseW1Slave(text, who);
  if (!r.crcOk) throw new OneWireError('CRC', `${who}: kernel reports crc=${r.crc.toString(16).padStart(2, '0')} NO`);
  if (crc8(r.bytes.slice(0, 8)) !== r.bytes[8]) throw new OneWireError('CRC', `${who}: scratchpad CRC mismatch`);
  if (r.bytes.every((b) => b === 0))
    throw new OneWireError('INVALID_DATA', `${who}: all-zero scratchpad (crc=00 YES t=0)`);
  if (r.bytes.every((b) => b === 0xff)) throw new OneWireError('NO_PRESENCE', `${who}: scratchpad all 0xFF`);
  // No TH marker through sysfs; the chip's own power-on signature is what can be checked.
  checkPowerOnSignature(r.bytes, who);
  const t = r.millidegrees / 1000;
  if (t < -55 || t > 125) throw new OneWireError('INVALID_DATA', `${who}: ${t} degC is outside -55..125`);
  return t;
}

/**
 * Family 0x3B from `w1_slave` text. Its `t=` and the `temperature` attribute are computed the
 * DS18B20 way: they carry no fault bits (a broken thermocouple reads as a plausible number), on
 * kernels before 5.14 the fault bit counts as 1/16 degC, and the -55..125 check the DS18B20 path
 * makes would cut off a kettle. So the scratchpad bytes are decoded here.
 */
export function max31850FromW1Slave(text: string, who = 'w1_slave'): Max31850Reading {
  const r = parseW1Slave(text, who);
  if (!r.crcOk) throw new OneWireError('CRC', `${who}: kernel reports crc=${r.crc.toString(16).padStart(2, '0')} NO`);
  return decodeFamily3b(r.bytes, who);
}

/** `w1_master_slaves`: one name per line, or `not found.` when empty. */
export function parseMasterSlaves(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && isKernelSlaveName(l));
}

/**
 * Temperature from the `temperature` attribute (millidegrees). 85000 is rejected as the power-on
 * value: W1SysfsBus.readTemperature then looks at the scratchpad in w1_slave.
 */
export function temperatureFromMillidegrees(text: string, who = 'temperature'): number {
  const s = text.trim();
  if (s === '') throw new OneWireError('IO', `${who}: empty read (kernel reported a failed read)`);
  if (!/^-?\d+$/.test(s))
    throw new OneWireError('INVALID_DATA', `${who}: not a number: ${JSON.stringify(s.slice(0, 40))}`);
  const milli = parseInt(s, 10);
  if (milli === 85000) throw new PowerOnResetError(`${who}: 85000 is the DS18B20 power-on value`);
  const t = milli / 1000;
  if (t < -55 || t > 125) throw new OneWireError('INVALID_DATA', `${who}: ${t} degC is outside -55..125`);
  return t;
}

function fsError(e: unknown, who: string): OneWireError {
  if (e instanceof OneWireError) return e;
  const code = (e as NodeJS.ErrnoException)?.code;
  const msg = e instanceof Error ? e.message : String(e);
  if (code === 'ENOENT' || code === 'ENODEV' || code === 'ENXIO') {
    return new OneWireError('NO_PRESENCE', `${who}: device gone from the w1 tree (${code})`);
  }
  return new OneWireError('IO', `${who}: ${msg}`);
}

/**
 * A sysfs attribute's content: opened and closed at once (neither touches the bus), read through
 * libuv's thread pool (a temperature read can wait on the bus for a conversion). readFile made
 * five trips through the pool (open, fstat, read, a read for the end, close), each a wake-up of a
 * pool thread and of the event loop: with a few sensors read every second they were most of an
 * idle Pi's wake-ups. The kernel gives an attribute whole in one read (at most a page); a read
 * that fills the buffer reads on, up to MAX_ATTRIBUTE_BYTES: a w1 root pointed at a directory of
 * ordinary files (a configuration mistake) must not have a big file read into memory every second.
 */
export async function readAttribute(path: string): Promise<Buffer> {
  const fd = openSync(path, 'r');
  try {
    const parts: Buffer[] = [];
    for (;;) {
      if (parts.length * 4096 >= MAX_ATTRIBUTE_BYTES)
        throw new Error(
          `${path} holds ${MAX_ATTRIBUTE_BYTES} bytes or more: not a kernel w1 attribute (is the w1 root right?)`,
        );
      const buffer = Buffer.allocUnsafe(4096);
      const bytesRead = await readAt(fd, buffer, parts.length * buffer.length);
      parts.push(buffer.subarray(0, bytesRead));
      if (bytesRead < buffer.length) return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a sysfs attribute: opened and closed at once, written in one write through the thread
 * pool (a write can start bus traffic). writeFile made three trips (open, write, close), each a
 * wake-up of a pool thread and of the event loop: a Pi's bulk conversion trigger made six of its
 * wake-ups a second. No O_CREAT: an attribute that went away must not come back as a plain file.
 */
export async function writeAttribute(path: string, data: Buffer): Promise<void> {
  const fd = openSync(path, fsc.O_WRONLY | fsc.O_TRUNC);
  try {
    const written = await new Promise<number>((resolve, reject) =>
      write(fd, data, 0, data.length, null, (e, n) => (e ? reject(e) : resolve(n))),
    );
    if (written !== data.length) throw new Error(`${path}: ${written} of ${data.length} bytes written`);
  } finally {
    closeSync(fd);
  }
}

const TRIGGER = Buffer.from('trigger\n');

/** Far more than any w1 attribute holds (a master's slave list of 64 devices is about 1 KiB). */
export const MAX_ATTRIBUTE_BYTES = 64 * 1024;

function readAt(fd: number, buffer: Buffer, position: number): Promise<number> {
  return new Promise((resolve, reject) =>
    read(fd, buffer, 0, buffer.length, position, (e, n) => (e ? reject(e) : resolve(n))),
  );
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

export interface W1SysfsOptions {
  /** Directory holding masters and slaves. Default /sys/bus/w1/devices. */
  root?: string;
  /** Master directory name. Default w1_bus_master1. */
  master?: string;
}

export class W1SysfsBus implements OneWireBus {
  readonly kind = 'w1' as const;
  readonly name: string;
  readonly root: string;
  readonly master: string;
  /** Bulk conversions triggered through therm_bulk_read. */
  bulkTriggers = 0;
  private bulkUsable = true;
  /** therm_bulk_read was found writable; not looked at again until a write finds it gone. */
  private bulkChecked = false;

  constructor(options: W1SysfsOptions = {}) {
    this.root = options.root ?? W1_DEFAULT_ROOT;
    this.master = options.master ?? 'w1_bus_master1';
    this.name = `w1-${this.master}`;
  }

  private get masterDir(): string {
    return join(this.root, this.master);
  }

  private slaveFile(address: RomAddress, file: string): string {
    return join(this.root, romToKernelName(address), file);
  }

  async search(): Promise<RomAddress[]> {
    let names: string[];
    try {
      names = parseMasterSlaves((await readAttribute(join(this.masterDir, 'w1_master_slaves'))).toString('utf8'));
    } catch (e) {
      if ((e as NodeJS.ErrnoException)?.code !== 'ENOENT' || !(await exists(this.masterDir))) {
        throw fsError(e, `${this.name} w1_master_slaves`);
      }
      names = (await readdir(this.masterDir)).filter(isKernelSlaveName);
    }
    const out: RomAddress[] = [];
    for (const n of names) {
      const a = kernelNameToRom(n);
      const family = romFamily(a);
      if (family !== 0x00 && family !== 0xff && !out.includes(a)) out.push(a);
    }
    return out;
  }

  /**
   * Writes `trigger` to therm_bulk_read when present and writable; otherwise each read converts
   * by itself. The file is looked at once (and again after it went away), not every cycle.
   */
  async convertAll(): Promise<void> {
    if (!this.bulkUsable) return;
    const file = join(this.masterDir, 'therm_bulk_read');
    if (!this.bulkChecked) {
      let st;
      try {
        st = await stat(file);
      } catch {
        return; // absent (no bulk-capable sensor, or an old kernel)
      }
      if ((st.mode & 0o222) === 0) {
        this.bulkUsable = false;
        return;
      }
      this.bulkChecked = true;
    }
    try {
      await writeAttribute(file, TRIGGER);
      this.bulkTriggers++;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException)?.code;
      if (code === 'ENOENT') {
        this.bulkChecked = false; // gone (its last bulk-capable sensor unplugged): look again next cycle
        return;
      }
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
        this.bulkUsable = false;
        return;
      }
      throw fsError(e, `${this.name} therm_bulk_read`);
    }
  }

  async readTemperature(address: RomAddress): Promise<number> {
    const who = `${address} (${romToKernelName(address)})`;
    if (romFamily(address) === MAX31850_FAMILY) {
      const r = await this.readMax31850(address);
      if (r.temperature === null) throw new OneWireError('INVALID_DATA', `${who}: thermocouple ${r.fault}`);
      return r.temperature;
    }
    const tempFile = this.slaveFile(address, 'temperature');
    let text: string | null = null;
    try {
      text = (await readAttribute(tempFile)).toString('utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException)?.code !== 'ENOENT') throw fsError(e, who);
    }
    if (text !== null) {
      let t: number | null = null;
      try {
        t = temperatureFromMillidegrees(text, who);
      } catch (e) {
        // 85000 is the power-on value or a real 85.000 degC: only the scratchpad tells them apart
        // (byte 6), so it is confirmed via w1_slave, as a 0 is.
        if (!(e instanceof PowerOnResetError)) throw e;
      }
      // An all-zero scratchpad passes the kernel's CRC and reads as 0; confirm a 0 via w1_slave.
      if (t !== null && t !== 0) return t;
    }
    try {
      return temperatureFromW1Slave((await readAttribute(this.slaveFile(address, 'w1_slave'))).toString('utf8'), who);
    } catch (e) {
      throw fsError(e, who);
    }
  }

  async readMax31850(address: RomAddress): Promise<Max31850Reading> {
    const who = `${address} (${romToKernelName(address)})`;
    try {
      return max31850FromW1Slave((await readAttribute(this.slaveFile(address, 'w1_slave'))).toString('utf8'), who);
    } catch (e) {
      throw fsError(e, who);
    }
  }

  private async readByteFile(address: RomAddress, file: string): Promise<number> {
    let buf: Buffer;
    try {
      buf = await readAttribute(this.slaveFile(address, file));
    } catch (e) {
      throw fsError(e, `${address} ${file}`);
    }
    if (buf.length < 1) throw new OneWireError('IO', `${address} ${file}: empty read (kernel reported a failed read)`);
    return buf[0]!;
  }

  private async writeByteFile(address: RomAddress, file: string, byte: number): Promise<void> {
    try {
      await writeAttribute(this.slaveFile(address, file), Buffer.from([byte & 0xff]));
    } catch (e) {
      throw fsError(e, `${address} ${file}`);
    }
  }

  /**
   * The kernel reads each register as one byte without a CRC, and fails only when no device
   * answers the reset: a chip that stopped answering on a bus where another one still does reads
   * 0xFF, as a chip with every output off does in state and output. Then status_control, whose
   * bits 4-6 a chip always reads as 0, tells an answer from the idle bus.
   */
  async readDs2408(address: RomAddress): Promise<{ pins: number; latches: number }> {
    const state = await this.readByteFile(address, 'state');
    const output = await this.readByteFile(address, 'output');
    if (state === 0xff && output === 0xff) {
      const control = await this.readByteFile(address, 'status_control');
      if (!ds2408ControlStatusValid(control))
        throw new OneWireError(
          'NO_PRESENCE',
          `${address}: no answer (every register reads 0xff, status_control 0x${control.toString(16)})`,
        );
    }
    return { pins: ~state & 0xff, latches: ~output & 0xff };
  }

  async writeDs2408(address: RomAddress, latches: number): Promise<void> {
    await this.writeByteFile(address, 'output', ~latches & 0xff);
  }

  async readDs2413(address: RomAddress): Promise<{ pins: number; latches: number }> {
    const status = await this.readByteFile(address, 'state');
    if (!ds2413StatusValid(status)) throw new OneWireError('CRC', `${address} state: complement check failed`);
    return decodeDs2413(status);
  }

  async writeDs2413(address: RomAddress, latches: number): Promise<void> {
    await this.writeByteFile(address, 'output', 0xfc | (~latches & 0x03));
  }

  async close(): Promise<void> {}
}

/** Master directory names (`w1_bus_masterN`) under `root`, in numeric order. */
export async function listW1Masters(root = W1_DEFAULT_ROOT): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(root);
  } catch {
    return [];
  }
  return entries
    .filter((e) => /^w1_bus_master\d+$/.test(e))
    .sort((a, b) => parseInt(a.slice(13), 10) - parseInt(b.slice(13), 10));
}

/** One bus per kernel w1 master found under `root`. */
export async function openW1Buses(root = W1_DEFAULT_ROOT): Promise<W1SysfsBus[]> {
  return (await listW1Masters(root)).map((master) => new W1SysfsBus({ root, master }));
}
