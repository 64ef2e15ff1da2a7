// The system section: the Pi model, OS, kernel, Node, memory and disk, the SD card's wear from
// what history writes a day, and the clock (synchronised or not, RTC or not).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statfsSync, statSync } from 'node:fs';
import { freemem, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { HISTORY_DIR } from '../history/embedded/embedded-store.js';
import { diskSpace } from '../store/storage-health.js';
import { advice } from './advice.js';
import { section, type Section } from './report.js';
import { shown, type Roots } from './roots.js';

const MB = 1024 * 1024;
/** A modest SD card's program/erase cycles (docs/history.md uses the same figure). */
const ERASE_CYCLES = 3000;
const WEAR_WARN_YEARS = 5;

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').replace(/\0+$/, '').trim();
  } catch {
    return null;
  }
}

export function piModel(roots: Roots): string | null {
  return read(join(roots.proc, 'device-tree/model')) ?? read(join(roots.sys, 'firmware/devicetree/base/model'));
}

function osRelease(roots: Roots): string | null {
  const text = read(join(roots.etc, 'os-release'));
  return text?.match(/^PRETTY_NAME="?([^"\n]*)"?$/m)?.[1] ?? null;
}

function memory(roots: Roots): { free: number; total: number } {
  const info = read(join(roots.proc, 'meminfo'));
  const kb = (key: string) => Number(info?.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'))?.[1] ?? NaN) * 1024;
  const total = kb('MemTotal');
  const free = kb('MemAvailable');
  return Number.isFinite(total) && Number.isFinite(free) ? { free, total } : { free: freemem(), total: totalmem() };
}

export interface HistoryRate {
  bytesPerDay: number;
  how: string;
}

/** What the embedded history writes a day, from its files: they are written once (append-only), so their bytes over their age are the rate. */
export function historyRateFromFiles(dataDir: string, now = Date.now()): HistoryRate | null {
  const dir = join(dataDir, HISTORY_DIR);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null;
  }
  let bytes = 0;
  let oldest = now;
  for (const name of names) {
    try {
      const st = statSync(join(dir, name));
      if (!st.isFile()) continue;
      bytes += st.size;
      oldest = Math.min(oldest, st.birthtimeMs > 0 ? st.birthtimeMs : st.mtimeMs);
    } catch {
      // gone meanwhile
    }
  }
  const days = (now - oldest) / 86_400_000;
  if (bytes === 0 || days < 1 / 24) return null;
  return { bytesPerDay: bytes / days, how: `${(bytes / MB).toFixed(1)} MB in history/ over ${days.toFixed(1)} days` };
}

function clockState(roots: Roots): { synced: boolean | null; how: string } {
  if (existsSync(join(roots.run, 'systemd/timesync/synchronized')))
    return { synced: true, how: 'systemd-timesyncd: synchronised' };
  if (roots.root === '/') {
    try {
      const out = execFileSync('timedatectl', ['show', '-p', 'NTPSynchronized', '--value'], {
        encoding: 'utf8',
        timeout: 3000,
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
      if (out === 'yes' || out === 'no') return { synced: out === 'yes', how: `timedatectl: NTPSynchronized=${out}` };
    } catch {
      // no timedatectl (not systemd), fall through
    }
    return { synced: null, how: 'unknown (no timedatectl)' };
  }
  return { synced: false, how: 'no network time (no /run/systemd/timesync/synchronized)' };
}

function rtc(roots: Roots): string | null {
  const name = read(join(roots.sys, 'class/rtc/rtc0/name'));
  return name ?? (existsSync(join(roots.sys, 'class/rtc/rtc0')) ? 'rtc0' : null);
}

/** A card's size as its label says it: GB, or MB under one GB. */
function size(bytes: number): string {
  return bytes >= 1024 * MB ? `${(bytes / 1024 / MB).toFixed(0)} GB` : `${(bytes / MB).toFixed(0)} MB`;
}

export function systemSection(
  roots: Roots,
  dataDir: string,
  diskFreePercent: number,
  rate: HistoryRate | null,
): Section {
  const s = section('System');
  const model = piModel(roots);
  s.facts.push(['model', model ?? 'unknown (no device-tree model: not a Raspberry Pi?)']);
  s.facts.push(['os', osRelease(roots) ?? 'unknown']);
  s.facts.push(['kernel', read(join(roots.proc, 'sys/kernel/osrelease')) ?? release()]);
  s.facts.push(['node', `${process.version} (${process.arch})`]);
  const mem = memory(roots);
  s.facts.push(['memory', `${Math.round(mem.free / MB)} MB available of ${Math.round(mem.total / MB)} MB`]);
  const disk = diskSpace(existsSync(dataDir) ? dataDir : roots.root);
  let capacity: number | null = null;
  try {
    const st = statfsSync(existsSync(dataDir) ? dataDir : roots.root);
    capacity = st.blocks * st.bsize;
  } catch {
    capacity = null;
  }
  if (disk) {
    s.facts.push([
      'disk',
      `${shown(roots, dataDir)}: ${(disk.freeBytes / 1024 / MB).toFixed(1)} GB free${disk.freePercent !== null ? ` (${disk.freePercent.toFixed(0)} %)` : ''}`,
    ]);
    if (disk.freePercent !== null && disk.freePercent < diskFreePercent)
      s.findings.push({
        verdict: 'fail',
        text: `the data disk has ${disk.freePercent.toFixed(1)} % free (the alert fires below ${diskFreePercent} %)`,
        ...advice('diskFull'),
      });
  }
  if (rate) {
    const years = capacity ? (capacity * ERASE_CYCLES) / rate.bytesPerDay / 365 : null;
    s.facts.push([
      'sd card wear',
      `history writes ${(rate.bytesPerDay / MB).toFixed(1)} MB a day (${rate.how})${years !== null ? `; a ${size(capacity!)} card of ${ERASE_CYCLES} erase cycles lasts ${years > 1000 ? 'over 1000' : years.toFixed(0)} years of that` : ''}`,
    ]);
    if (years !== null && years < WEAR_WARN_YEARS)
      s.findings.push({
        verdict: 'warn',
        text: `at this rate the SD card wears out in about ${years.toFixed(1)} years`,
        advice: 'lower historyMaxBytes or the number of logged fields, or keep history on an SSD or in VictoriaMetrics',
        see: 'docs/history.md#the-embedded-store-and-the-sd-card',
      });
  } else s.facts.push(['sd card wear', 'no history written yet']);
  const clock = clockState(roots);
  const clockRtc = rtc(roots);
  s.facts.push(['clock', `${clock.how}; ${clockRtc ? `RTC ${clockRtc}` : 'no RTC (the time is lost at power-off)'}`]);
  if (clock.synced === false)
    s.findings.push({
      verdict: 'warn',
      text: 'the clock is not synchronised with network time',
      ...advice('clockBehind'),
    });
  return s;
}
