// Emulated Linux kernel w1 sysfs tree in a directory, rendered from segment models in the
// kernel's file formats, and kept up to date by refresh() (call it, or start() a timer).
// Writes by the driver (DS2408/DS2413 `output`, `therm_bulk_read`) are picked up on refresh.
// Faults appear as the kernel shows them: `crc=xx NO` in w1_slave with an empty `temperature`,
// empty files for a device that stopped answering but is still listed, and the directory
// vanishing once the device has been missing for `slaveTtl` refreshes.
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
  lstatSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { romToKernelName } from '../onewire/address.js';
import { crc8 } from '../onewire/crc.js';
import type { OneWireSegment } from './onewire-wire.js';
import { SimDs18b20 } from './onewire-ds18b20.js';
import { SimDs2408 } from './onewire-ds2408.js';
import { SimDs2413 } from './onewire-ds2413.js';
import { SimMax31850 } from './onewire-max31850.js';
import type { SimSlave } from './onewire-slave.js';

export interface W1TreeOptions {
  /** Directory to render into; a fresh temporary directory when omitted (removed by close()). */
  root?: string;
  /** One kernel master per segment: segments[0] is w1_bus_master1. */
  masters: OneWireSegment[];
  /** Render the `temperature` attribute (kernels since 2020). Default true. */
  temperatureFile?: boolean;
  /** therm_bulk_read on masters with DS18B20s: writable (default), read-only, or absent. */
  bulkRead?: 'writable' | 'readonly' | 'absent';
  /** Render w1_master_slaves. Default true. */
  masterSlavesFile?: boolean;
  /** Refreshes a missing device stays listed (with failing reads) before its directory goes. Default 0. */
  slaveTtl?: number;
}

interface Listed {
  device: SimSlave;
  master: number;
  missing: number;
  lastGood: number[];
  /** Listed for the first time since the tree was created (nothing to show from before). */
  fresh: boolean;
}

function hex2(b: number): string {
  return b.toString(16).padStart(2, '0');
}

/**
 * Kernel w1_therm conversion of a scratchpad to millidegrees (DS18B20 12-bit; for family 3b with
 * configuration bit 7 set, a MAX31850, the fault and reserved bits are masked as since Linux 5.14:
 * the fault itself is not reported).
 */
function millidegrees(bytes: number[]): number {
  let raw = (bytes[1]! << 8) | bytes[0]!;
  if (bytes[4]! & 0x80) raw &= 0xfffc;
  const signed = raw & 0x8000 ? raw - 0x10000 : raw;
  return Math.trunc((signed * 1000) / 16);
}

/** The two-line w1_slave text for a scratchpad read (kernel format). */
export function renderW1Slave(bytes: number[], lastGood: number[]): string {
  const crc = crc8(bytes.slice(0, 8));
  const ok = crc === bytes[8];
  const line1 = bytes.map((b) => `${hex2(b)} `).join('') + `: crc=${hex2(crc)} ${ok ? 'YES' : 'NO'}\n`;
  const line2 = (ok ? bytes : lastGood).map((b) => `${hex2(b)} `).join('') + `t=${millidegrees(bytes)}\n`;
  return line1 + line2;
}

export class W1Tree {
  readonly root: string;
  readonly stats = { refreshes: 0, bulkTriggers: 0, outputWrites: 0 };
  private readonly ownsRoot: boolean;
  private readonly segments: OneWireSegment[];
  private readonly temperatureFile: boolean;
  private readonly bulkRead: 'writable' | 'readonly' | 'absent';
  private readonly masterSlavesFile: boolean;
  private readonly slaveTtl: number;
  private readonly listed = new Map<string, Listed>();
  private readonly rendered = new Map<string, Buffer>();
  private readonly everListed = new Set<string>();
  /** Attributes a driver has opened (truncated) but not yet written: left alone this refresh. */
  private readonly writing = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(options: W1TreeOptions) {
    this.ownsRoot = options.root === undefined;
    this.root = options.root ?? mkdtempSync(join(tmpdir(), 'w1-tree-'));
    mkdirSync(this.root, { recursive: true });
    this.segments = options.masters;
    this.temperatureFile = options.temperatureFile ?? true;
    this.bulkRead = options.bulkRead ?? 'writable';
    this.masterSlavesFile = options.masterSlavesFile ?? true;
    this.slaveTtl = options.slaveTtl ?? 0;
    this.refresh();
  }

  masterName(index: number): string {
    return `w1_bus_master${index + 1}`;
  }

  slaveDir(device: SimSlave): string {
    const l = this.listed.get(device.address);
    const master = l
      ? l.master
      : Math.max(
          0,
          this.segments.findIndex((s) => s.devices.includes(device)),
        );
    return join(this.root, this.masterName(master), romToKernelName(device.address));
  }

  /** Re-render timer for use outside tests. */
  start(intervalMs = 250): void {
    this.stop();
    this.timer = setInterval(() => this.refresh(), intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  close(): void {
    this.stop();
    if (this.ownsRoot) rmSync(this.root, { recursive: true, force: true });
  }

  private write(path: string, content: string | Buffer, mode = 0o444): void {
    const buf = typeof content === 'string' ? Buffer.from(content) : content;
    const prev = this.rendered.get(path);
    if (prev && prev.equals(buf) && existsSync(path)) return;
    if (this.writing.has(path)) return;
    const tmp = `${path}.tmp-render`;
    writeFileSync(tmp, buf, { mode });
    renameSync(tmp, path);
    this.rendered.set(path, buf);
  }

  /**
   * Content changed since we rendered it = a write from the driver. A real sysfs store takes the
   * write whole, but here the driver's open truncates the file before its write lands: an empty
   * file where we rendered bytes is a write under way, taken at a later refresh.
   */
  private takeWrite(path: string): Buffer | null {
    const prev = this.rendered.get(path);
    if (!prev || !existsSync(path)) return null;
    const now = readFileSync(path);
    if (now.equals(prev)) return null;
    if (now.length === 0) {
      this.writing.add(path);
      return null;
    }
    this.rendered.delete(path); // render it again below
    return now;
  }

  refresh(): void {
    this.stats.refreshes++;
    this.writing.clear();
    this.segments.forEach((segment, index) => this.refreshMaster(segment, index));
  }

  private refreshMaster(segment: OneWireSegment, index: number): void {
    const name = this.masterName(index);
    const dir = join(this.root, name);
    mkdirSync(dir, { recursive: true });
    const reachable = new Set(segment.reachable());

    // Driver writes first, so a write is not overwritten by the render below.
    const bulkPath = join(dir, 'therm_bulk_read');
    const bulk = this.takeWrite(bulkPath);
    if (bulk && bulk.toString().trim() === 'trigger') {
      this.stats.bulkTriggers++;
      for (const d of reachable) if (d instanceof SimDs18b20 || d instanceof SimMax31850) d.convertNow();
    }
    for (const l of this.listed.values()) {
      if (l.master !== index) continue;
      const out = this.takeWrite(join(dir, romToKernelName(l.device.address), 'output'));
      if (!out || out.length < 1 || !reachable.has(l.device)) continue;
      if (l.device instanceof SimDs2408) l.device.channelWrite(out[0]!);
      else if (l.device instanceof SimDs2413) l.device.pioWrite(out[0]! | 0xfc);
      this.stats.outputWrites++;
    }

    // Membership: seen devices are listed; missing ones linger for slaveTtl refreshes.
    for (const d of segment.devices) {
      const l = this.listed.get(d.address);
      if (reachable.has(d)) {
        if (l) l.missing = 0;
        else {
          const fresh = !this.everListed.has(d.address);
          this.everListed.add(d.address);
          this.listed.set(d.address, { device: d, master: index, missing: 0, lastGood: new Array(9).fill(0), fresh });
        }
      }
    }
    for (const [address, l] of [...this.listed]) {
      if (l.master !== index) continue;
      if (!reachable.has(l.device)) l.missing++;
      if (l.missing > this.slaveTtl || !segment.devices.includes(l.device)) {
        this.removeSlave(l);
        this.listed.delete(address);
      }
    }

    const names: string[] = [];
    for (const l of this.listed.values()) {
      if (l.master !== index) continue;
      names.push(romToKernelName(l.device.address));
      this.renderSlave(l, dir, reachable.has(l.device), reachable.size > 0);
    }
    this.write(join(dir, 'w1_master_name'), `${name}\n`);
    if (this.masterSlavesFile)
      this.write(join(dir, 'w1_master_slaves'), names.length ? names.map((n) => `${n}\n`).join('') : 'not found.\n');
    this.write(join(dir, 'w1_master_slave_count'), `${names.length}\n`);
    this.write(join(dir, 'w1_master_max_slave_count'), '64\n', 0o644);
    this.write(join(dir, 'w1_master_search'), '-1\n', 0o644);
    this.write(join(dir, 'w1_master_timeout'), '10\n');
    const anyTherm = [...this.listed.values()].some(
      (l) => l.master === index && (l.device instanceof SimDs18b20 || l.device instanceof SimMax31850),
    );
    if (this.bulkRead !== 'absent' && anyTherm) {
      this.write(bulkPath, '0\n', this.bulkRead === 'writable' ? 0o664 : 0o444);
    } else if (existsSync(bulkPath)) {
      rmSync(bulkPath);
      this.rendered.delete(bulkPath);
    }
  }

  private removeSlave(l: Listed): void {
    const name = romToKernelName(l.device.address);
    const dir = join(this.root, this.masterName(l.master), name);
    rmSync(dir, { recursive: true, force: true });
    const link = join(this.root, name);
    try {
      if (lstatSync(link).isSymbolicLink()) rmSync(link);
    } catch {
      // not there
    }
    for (const key of [...this.rendered.keys()]) if (key.startsWith(dir)) this.rendered.delete(key);
  }

  /** `presence`: some device on the master answers the reset pulse (the one rendered or another). */
  private renderSlave(l: Listed, masterDir: string, answering: boolean, presence: boolean): void {
    const d = l.device;
    const name = romToKernelName(d.address);
    const dir = join(masterDir, name);
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
    const link = join(this.root, name);
    if (!existsSync(link)) {
      try {
        rmSync(link, { force: true });
        symlinkSync(join(this.masterName(l.master), name), link);
      } catch {
        // a stale entry of another kind; leave it
      }
    }
    this.write(join(dir, 'name'), `${name}\n`);
    this.write(join(dir, 'id'), Buffer.from(d.romBytes));

    if (d instanceof SimDs18b20) {
      let w1Slave = '';
      let temperature = '';
      if (answering) {
        // The kernel converts on every read. After a replug or power glitch the first read
        // shows the power-on scratchpad (what a lost conversion produces), later ones a fresh
        // value; a device present when the tree starts reads normally from the start.
        if (l.fresh || !d.powerOnValue) d.convertNow();
        l.fresh = false;
        const bytes = d.readScratchpadFrame();
        if (d.powerOnValue) d.convertNow();
        const ok = crc8(bytes.slice(0, 8)) === bytes[8];
        if (ok) l.lastGood = bytes;
        w1Slave = renderW1Slave(bytes, l.lastGood);
        temperature = ok ? `${millidegrees(bytes)}\n` : '';
      }
      this.write(join(dir, 'w1_slave'), w1Slave, 0o644);
      if (this.temperatureFile) this.write(join(dir, 'temperature'), temperature);
      this.write(join(dir, 'resolution'), `${d.resolutionBits}\n`, 0o644);
      // w1_therm.rst: ext_power reads 0 for a parasite-powered device, 1 for an external supply.
      this.write(join(dir, 'ext_power'), d.parasite ? '0\n' : '1\n');
      return;
    }
    if (d instanceof SimMax31850) {
      let w1Slave = '';
      let temperature = '';
      if (answering) {
        d.convertNow();
        const bytes = d.readScratchpadFrame();
        const ok = crc8(bytes.slice(0, 8)) === bytes[8];
        if (ok) l.lastGood = bytes;
        w1Slave = renderW1Slave(bytes, l.lastGood);
        temperature = ok ? `${millidegrees(bytes)}\n` : '';
      }
      this.write(join(dir, 'w1_slave'), w1Slave, 0o644);
      if (this.temperatureFile) this.write(join(dir, 'temperature'), temperature);
      this.write(join(dir, 'ext_power'), '1\n');
      return;
    }
    if (d instanceof SimDs2408) {
      // w1_ds2408 reads a register as one byte without a CRC, and fails only when nothing
      // answers the reset: with another device giving the presence pulse, a chip that does not
      // answer reads as the idle bus, 0xFF.
      const idleBus = !answering && presence;
      const fail = !answering || this.consumeCorruption(d);
      const reg = (r: number) =>
        idleBus ? Buffer.from([0xff]) : fail ? Buffer.alloc(0) : Buffer.from([d.register(r)]);
      this.write(join(dir, 'state'), reg(0x88));
      this.write(join(dir, 'output'), reg(0x89), 0o644);
      this.write(join(dir, 'activity'), reg(0x8a), 0o644);
      this.write(join(dir, 'status_control'), reg(0x8d), 0o644);
      return;
    }
    if (d instanceof SimDs2413) {
      // The kernel checks the complement nibble itself and fails the read (-EIO) when it is wrong.
      const fail = !answering || this.consumeCorruption(d);
      this.write(join(dir, 'state'), fail ? Buffer.alloc(0) : Buffer.from([d.status()]));
      this.write(join(dir, 'output'), fail ? Buffer.alloc(0) : Buffer.from([0xfc | d.latch]), 0o664);
    }
  }

  private consumeCorruption(d: SimSlave): boolean {
    if (d.faults.zeroData) return true;
    if (d.faults.corruptReads > 0) {
      d.faults.corruptReads--;
      return true;
    }
    return false;
  }
}
