// Finds the 1-Wire masters of the machine: kernel w1 masters, DS2482 channels on I2C buses,
// DS2480B adapters on serial ports. Anything missing is normal on a machine without it: one
// info line, never an error that stops the service.
import { listI2cAdapters, type I2cRoots } from '../../drivers/i2c/adapters.js';
import { openI2cBus } from '../../drivers/i2c/i2c-bus.js';
import { queued } from '../../drivers/i2c/queue.js';
import type { I2cBus } from '../../drivers/i2c/types.js';
import { Ds2480bMaster, openDs2480bBus, type SerialLink } from '../../drivers/onewire/ds2480b.js';
import { probeDs2482Buses } from '../../drivers/onewire/ds2482.js';
import { ProtocolBus } from '../../drivers/onewire/protocol-bus.js';
import type { OneWireBus } from '../../drivers/onewire/types.js';
import { openW1Buses } from '../../drivers/onewire/w1-sysfs.js';
import type { Logger } from '../log.js';

function text(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
}

export async function openW1Masters(root: string, log: Logger): Promise<OneWireBus[]> {
  const buses = await openW1Buses(root);
  if (buses.length === 0) log.info(`no kernel 1-Wire masters under ${root}`);
  else log.info({ masters: buses.map((b) => b.name) }, `kernel 1-Wire: ${buses.length} master(s) under ${root}`);
  return buses;
}

/** `/dev/i2c-1`, `i2c-1` or `1` -> 1. */
export function i2cBusNumber(spec: string): number | null {
  const m = /^(?:\/dev\/)?(?:i2c-)?(\d+)$/.exec(spec.trim());
  return m ? Number(m[1]) : null;
}

/** The /dev/i2c-* discovery probes when none are configured: every bus but the display's (HDMI DDC). */
export async function listI2cBuses(roots: I2cRoots = {}): Promise<string[]> {
  return (await listI2cAdapters(roots)).filter((a) => a.role !== 'display').map((a) => `/dev/i2c-${a.bus}`);
}

/** One line per display bus discovery leaves alone (a monitor's EDID is on it). */
async function logSkippedI2cBuses(log: Logger): Promise<void> {
  for (const a of (await listI2cAdapters()).filter((x) => x.role === 'display'))
    log.info(`/dev/i2c-${a.bus} (${a.name}): an HDMI display bus, not probed; name it in i2cBuses to probe it`);
}

/** DS2482 channels on one I2C bus (the bus is closed again when it has none, unless `keepOpen`). */
export async function probeI2c(i2c: I2cBus, label: string, log: Logger, keepOpen = false): Promise<OneWireBus[]> {
  let buses: OneWireBus[] = [];
  try {
    buses = await probeDs2482Buses(i2c);
  } catch (e) {
    log.info(`${label}: DS2482 probe failed: ${text(e)}`);
  }
  if (buses.length === 0) {
    log.info(`${label}: no DS2482 bridge at 0x18-0x1B`);
    if (!keepOpen) await i2c.close().catch(() => undefined);
  } else {
    log.info({ masters: buses.map((b) => b.name) }, `${label}: ${buses.length} DS2482 channel(s)`);
  }
  return buses;
}

/**
 * Every DS2482 channel on the given buses, or on every /dev/i2c-* when none are given. `keep`
 * gets each bus kept open. With `useBus` (the IO chips), every bus opens through its transaction
 * queue and stays open when `useBus` wants it.
 */
export async function openI2cMasters(
  configured: string[],
  log: Logger,
  keep: (i2c: I2cBus) => void,
  useBus?: (i2c: I2cBus, busNumber: number) => Promise<boolean>,
): Promise<OneWireBus[]> {
  const specs = configured.length ? configured : await listI2cBuses();
  if (!configured.length) await logSkippedI2cBuses(log);
  if (specs.length === 0) {
    log.info('no I2C buses (/dev/i2c-*): no DS2482 bridges');
    return [];
  }
  const out: OneWireBus[] = [];
  for (const spec of specs) {
    const n = i2cBusNumber(spec);
    if (n === null) {
      log.warn(`i2cBuses: '${spec}' is not an I2C bus (use /dev/i2c-N or N)`);
      continue;
    }
    let i2c: I2cBus;
    try {
      i2c = queued(await openI2cBus(n));
    } catch (e) {
      log.info(`/dev/i2c-${n}: ${text(e)}`);
      continue;
    }
    const found = await probeI2c(i2c, `/dev/i2c-${n}`, log, !!useBus);
    const used = useBus ? await useBus(i2c, n) : false;
    if (found.length || used) keep(i2c);
    else if (useBus) await i2c.close().catch(() => undefined);
    out.push(...found);
  }
  return out;
}

export async function openSerialMasters(ports: string[], log: Logger): Promise<OneWireBus[]> {
  const out: OneWireBus[] = [];
  for (const port of ports) {
    try {
      const bus = await openDs2480bBus(port);
      log.info({ master: bus.name }, `DS2480B adapter on ${port}`);
      out.push(bus);
    } catch (e) {
      log.warn(`serialPorts: no DS2480B adapter on ${port}: ${text(e)}`);
    }
  }
  return out;
}

/** A DS2480B reached through an already open link (the in-process emulation). */
export async function openSerialLinkMaster(link: SerialLink, log: Logger): Promise<OneWireBus | null> {
  const master = new Ds2480bMaster(link);
  try {
    await master.init();
  } catch (e) {
    log.warn(`no DS2480B answering on ${link.path}: ${text(e)}`);
    return null;
  }
  return new ProtocolBus(master, { kind: 'ds2480b' });
}
