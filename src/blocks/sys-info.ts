// SysInfo: the controller's identity and health, system block nid 2.
import os from 'node:os';
import { f } from '../codec/fields.js';
import { legacy, type LegacyTable } from '../codec/legacy.js';
import { defineBlock } from '../runtime/types.js';
import { VERSION } from '../shared/version.js';
import { nextBeat } from './shared/cadence.js';

const RATE_WINDOW_MS = 3000;
/** Host name and memory figures are read this often (system calls and /proc reads; the history logs them every 5 s). */
const SYSTEM_READ_MS = 5000;

const fields = {
  deviceId: f.string({ readonly: true }),
  version: f.string({ readonly: true }),
  platform: f.string({ readonly: true }),
  hostname: f.string({ readonly: true }),
  uptime: f.duration({ readonly: true, logged: true, description: 'process uptime' }),
  updatesPerSecond: f.number({ readonly: true, logged: true, description: 'scheduler ticks per second' }),
  memoryRss: f.number({ readonly: true, logged: true, integer: true, description: 'resident set size, bytes' }),
  memoryHeapUsed: f.number({ readonly: true, logged: true, integer: true, description: 'V8 heap in use, bytes' }),
  memoryFree: f.number({ readonly: true, logged: true, integer: true, description: 'free system memory, bytes' }),
  systemTime: f.datetime({ readonly: true }),
  timeZone: f.string({ stored: true, maxLength: 64, description: 'IANA time zone name, informational' }),
  // The Brewblox UI patches these two; kept and reported (a Pi has no display of its own).
  tempUnit: f.enum(
    { TEMP_CELSIUS: 0, TEMP_FAHRENHEIT: 1 },
    { stored: true, description: 'display temperature unit (informational; output units follow the units document)' },
  ),
  displayBrightness: f.number({
    stored: true,
    integer: true,
    min: 0,
    max: 255,
    description: 'display brightness (informational)',
  }),
};

/** Read-only SysInfo fields of the Spark that have no meaning on a Pi: accepted, not reported. */
const legacyNames: LegacyTable = Object.fromEntries(
  [
    'protocolVersion',
    'releaseDate',
    'protocolDate',
    'ip',
    'voltage5',
    'voltageExternal',
    'memoryFreeContiguous',
    'memoryFreeLowest',
  ].map((n) => [n, legacy.notReported('Spark hardware detail, read-only')]),
);

export const SysInfo = defineBlock<typeof fields, { windowStart: number; windowTicks: number; systemDue: number }>({
  type: 'SysInfo',
  role: 'system',
  fields,
  legacy: legacyNames,
  implements: [],
  description: 'Controller identity and health',
  system: { nid: 2, id: 'SysInfo' },
  init: () => ({ windowStart: NaN, windowTicks: 0, systemDue: -Infinity }),
  update(block, ctx) {
    const d = block.data;
    const s = block.state;
    if (Number.isNaN(s.windowStart)) {
      s.windowStart = ctx.now;
      s.windowTicks = ctx.ticks;
    } else if (ctx.now - s.windowStart >= RATE_WINDOW_MS) {
      d.updatesPerSecond = Math.round(((ctx.ticks - s.windowTicks) * 1000 * 10) / (ctx.now - s.windowStart)) / 10;
      s.windowStart = ctx.now;
      s.windowTicks = ctx.ticks;
    }
    d.deviceId = deviceId();
    d.version = VERSION;
    d.platform = `${process.platform}-${process.arch}`;
    d.uptime = Math.round(process.uptime() * 1000) / 1000;
    if (ctx.now >= s.systemDue) {
      s.systemDue = nextBeat(ctx.now, SYSTEM_READ_MS);
      d.hostname = os.hostname();
      const mem = process.memoryUsage();
      d.memoryRss = mem.rss;
      d.memoryHeapUsed = mem.heapUsed;
      d.memoryFree = os.freemem();
    }
    d.systemTime = ctx.wall === null ? null : Math.floor(ctx.wall / 1000);
    return nextBeat(ctx.now, 1000);
  },
});

let cachedDeviceId: string | undefined;
export function deviceId(): string {
  if (cachedDeviceId === undefined) {
    const mac = Object.values(os.networkInterfaces())
      .flat()
      .find((i) => i && !i.internal && i.mac && i.mac !== '00:00:00:00:00:00')?.mac;
    cachedDeviceId = (mac ?? os.hostname()).replace(/[^0-9a-zA-Z]/g, '').toLowerCase();
  }
  return cachedDeviceId;
}
