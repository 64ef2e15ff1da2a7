// The failsafe's 1-Wire half: opens the masters the config names (kernel w1 tree, DS2482
// bridges on I2C, DS2480B adapters on serial ports), finds every IO module (the IO families of
// drivers/onewire/families.ts: DS2408, DS2413) and switches all their outputs off, as the
// service does at a clean stop. After kill -9 or a watchdog kill the service never got to do
// that, and a relay on an IO module would keep its latch.
import { familyOf, type OneWireIoFamily } from '../../drivers/onewire/families.js';
import type { OneWireBus, RomAddress } from '../../drivers/onewire/types.js';
import type { Config } from '../config-schema.js';
import type { Logger } from '../log.js';
import { openI2cMasters, openSerialMasters, openW1Masters } from '../hardware/masters.js';

/** The 1-Wire part of the config, as the config schema (config-schema.ts) reads it. */
export type OneWireFailsafeConfig = Pick<Config, 'w1Root' | 'i2cBuses' | 'serialPorts'>;

export interface Reporter {
  say(line: string): void;
  problem(line: string): void;
}

function text(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
}

/**
 * The master openers log through a pino-shaped logger. Their warnings are masters the config
 * names that could not be opened (a serial port without an adapter): each one is a failure,
 * since outputs behind it were not made safe.
 */
function reporterLog(report: Reporter): { log: Logger; warnings: () => number } {
  const message = (args: unknown[]) => args.find((a): a is string => typeof a === 'string');
  const quiet = () => undefined;
  let warnings = 0;
  const log = {
    info: quiet,
    debug: quiet,
    warn: (...args: unknown[]) => {
      warnings++;
      report.problem(message(args) ?? 'a 1-Wire master could not be opened');
    },
  } as unknown as Logger;
  return { log, warnings: () => warnings };
}

const READBACK_TRIES = 3;
const READBACK_PAUSE_MS = 100;

/** Writes all latches off and reads them back; a write that did not take is written again. */
async function outputsOff(bus: OneWireBus, address: RomAddress, family: OneWireIoFamily): Promise<void> {
  let latches = -1;
  for (let i = 0; i < READBACK_TRIES; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, READBACK_PAUSE_MS));
    await family.writeIo(bus, address, 0);
    latches = await family
      .readIo(bus, address)
      .then((r) => r.latches)
      .catch(() => -1);
    if (latches === 0) return;
  }
  throw new Error(
    latches < 0
      ? 'written, but could not be read back'
      : `latches read back as ${latches.toString(2).padStart(family.channels, '0')}`,
  );
}

/** Every IO module on every bus to all outputs off. Returns the number of failures. */
async function allOff(buses: OneWireBus[], report: Reporter): Promise<number> {
  let failed = 0;
  let modules = 0;
  for (const bus of buses) {
    let found: RomAddress[];
    try {
      found = await bus.search();
    } catch (err) {
      report.problem(`${bus.name}: search failed: ${text(err)}`);
      failed++;
      continue;
    }
    for (const address of found) {
      const family = familyOf(address);
      if (family?.kind !== 'io') continue;
      modules++;
      try {
        await outputsOff(bus, address, family);
        report.say(`${family.name} ${address} on ${bus.name}: all outputs off`);
      } catch (err) {
        report.problem(`${family.name} ${address} on ${bus.name}: NOT made safe: ${text(err)}`);
        failed++;
      }
    }
  }
  if (modules === 0 && failed === 0) report.say('no 1-Wire IO modules found');
  return failed;
}

/**
 * Opens the configured 1-Wire masters and switches every IO module's outputs off, giving up
 * after `timeoutMs` (a hung bus must not hold up systemd). Returns the number of failures.
 */
export async function oneWireOutputsOff(
  config: OneWireFailsafeConfig,
  report: Reporter,
  timeoutMs: number,
): Promise<number> {
  const { log, warnings } = reporterLog(report);
  const buses: OneWireBus[] = [];
  const work = (async () => {
    buses.push(...(await openW1Masters(config.w1Root, log)));
    buses.push(...(await openI2cMasters(config.i2cBuses, log, () => undefined)));
    buses.push(...(await openSerialMasters(config.serialPorts, log)));
    return (await allOff(buses, report)) + warnings();
  })();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<number>((resolve) => {
    timer = setTimeout(() => {
      report.problem(`1-Wire IO modules: gave up after ${timeoutMs} ms; outputs not confirmed off`);
      resolve(1);
    }, timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } catch (err) {
    report.problem(`1-Wire IO modules: ${text(err)}`);
    return 1;
  } finally {
    clearTimeout(timer);
    await Promise.race([Promise.allSettled(buses.map((b) => b.close())), new Promise((r) => setTimeout(r, 200))]);
  }
}
