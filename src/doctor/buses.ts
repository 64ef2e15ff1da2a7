// The bus section: each 1-Wire bus searched, and each DS18B20 read N times through the real
// drivers, counting CRC errors, timing the conversion, measuring the spread of the values and
// catching the known bad values (the 85 degC power-on value, an all-zero scratchpad). Through a
// DS2482 or DS2480B the doctor speaks to the sensor itself; through the kernel's w1 tree it reads
// what the kernel shows (w1_slave, ext_power).
import { join } from 'node:path';
import { romFamily, romToKernelName } from '../../drivers/onewire/address.js';
import { crc8 } from '../../drivers/onewire/crc.js';
import { DS18B20_CMD, decodeTemperature, POWER_ON_RAW, rawTemperature } from '../../drivers/onewire/ds18b20.js';
import { ProtocolBus } from '../../drivers/onewire/protocol-bus.js';
import { readBytes, selectDevice } from '../../drivers/onewire/rom-commands.js';
import { FAMILY, type OneWireBus, type OneWireMaster, type RomAddress } from '../../drivers/onewire/types.js';
import { parseW1Slave, readAttribute, W1SysfsBus } from '../../drivers/onewire/w1-sysfs.js';
import { advice } from './advice.js';
import { section, type Finding, type Section } from './report.js';

/** Longest a 12-bit conversion may take (datasheet: 750 ms max), with room for a slow bus. */
const CONVERSION_LIMIT_MS = 1200;
const CRC_WARN_RATE = 0.05;
const SPREAD_WARN_C = 1;

type ReadResult =
  | { kind: 'ok'; celsius: number; ms: number }
  | { kind: 'crc' | 'powerOn' | 'zero' | 'absent'; ms: number }
  | { kind: 'error'; message: string; ms: number };

interface SensorProbe {
  /** true: powered from the data line; null: unknown. */
  parasite(): Promise<boolean | null>;
  read(): Promise<ReadResult>;
}

const FAMILY_NAMES: Record<number, string> = {
  [FAMILY.DS18B20]: 'DS18B20',
  [FAMILY.DS2408]: 'DS2408',
  [FAMILY.DS2413]: 'DS2413',
  [FAMILY.MAX31850]: 'MAX31850',
};

/** What 9 scratchpad bytes are: a CRC error, all zero, nobody, the power-on value, or a temperature. */
export function classifyScratchpad(bytes: number[], ms: number): ReadResult {
  if (bytes.every((b) => b === 0xff)) return { kind: 'absent', ms };
  if (bytes.every((b) => b === 0)) return { kind: 'zero', ms };
  if (crc8(bytes.slice(0, 8)) !== bytes[8]) return { kind: 'crc', ms };
  // The chip's own "no conversion happened" signature (DS18B20 datasheet, power-up state).
  if (rawTemperature(bytes) === POWER_ON_RAW && bytes[6] === 0x0c) return { kind: 'powerOn', ms };
  return { kind: 'ok', celsius: decodeTemperature(bytes), ms };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A DS18B20 behind a DS2482 or DS2480B: Read Power Supply, Convert T timed by read slots, Read Scratchpad. */
function protocolProbe(bus: ProtocolBus, address: RomAddress): SensorProbe {
  let parasite: boolean | null = null;
  return {
    parasite: () =>
      bus.exclusive(async (m: OneWireMaster) => {
        await selectDevice(m, address);
        await m.writeByte(DS18B20_CMD.READ_POWER_SUPPLY);
        parasite = (await m.readBit()) === 0;
        return parasite;
      }),
    read: () =>
      bus.exclusive(async (m: OneWireMaster) => {
        const t0 = performance.now();
        try {
          await selectDevice(m, address);
          await m.writeByte(DS18B20_CMD.CONVERT_T);
          // Externally powered: read slots are 0 until the conversion is done. Parasite powered:
          // the bus must stay high for the whole conversion, so wait the datasheet's 750 ms.
          if (parasite) await sleep(750);
          else while ((await m.readBit()) === 0 && performance.now() - t0 < CONVERSION_LIMIT_MS) await sleep(5);
          const ms = performance.now() - t0;
          await selectDevice(m, address);
          await m.writeByte(DS18B20_CMD.READ_SCRATCHPAD);
          return classifyScratchpad(await readBytes(m, 9), ms);
        } catch (e) {
          const code = (e as { code?: string }).code;
          return code === 'NO_PRESENCE'
            ? { kind: 'absent', ms: performance.now() - t0 }
            : { kind: 'error', message: (e as Error).message, ms: performance.now() - t0 };
        }
      }),
  };
}

/** A DS18B20 in the kernel's w1 tree: each read of w1_slave is a conversion by the kernel. */
function sysfsProbe(bus: W1SysfsBus, address: RomAddress): SensorProbe {
  const dir = join(bus.root, romToKernelName(address));
  return {
    parasite: async () => {
      try {
        const text = (await readAttribute(join(dir, 'ext_power'))).toString().trim();
        return text === '0' ? true : text === '1' ? false : null;
      } catch {
        return null;
      }
    },
    read: async () => {
      const t0 = performance.now();
      try {
        const text = (await readAttribute(join(dir, 'w1_slave'))).toString();
        const ms = performance.now() - t0;
        if (text.trim() === '') return { kind: 'absent', ms };
        const r = parseW1Slave(text);
        if (!r.crcOk) return { kind: 'crc', ms };
        return classifyScratchpad(r.bytes, ms);
      } catch (e) {
        const code = (e as { code?: string }).code;
        return code === 'ENOENT' || code === 'ENODEV'
          ? { kind: 'absent', ms: performance.now() - t0 }
          : { kind: 'error', message: (e as Error).message, ms: performance.now() - t0 };
      }
    },
  };
}

function probeFor(bus: OneWireBus, address: RomAddress): SensorProbe | null {
  if (bus instanceof ProtocolBus) return protocolProbe(bus, address);
  if (bus instanceof W1SysfsBus) return sysfsProbe(bus, address);
  return null;
}

const c = (v: number) => `${v.toFixed(2)} degC`;

async function sensorSection(bus: OneWireBus, address: RomAddress, reads: number, step: () => void): Promise<Section> {
  const s = section(`DS18B20 ${romToKernelName(address)}`);
  const probe = probeFor(bus, address);
  if (!probe) {
    s.findings.push({ verdict: 'info', text: `no raw access through a ${bus.kind} bus` });
    return s;
  }
  const parasite = await probe.parasite().catch(() => null);
  const results: ReadResult[] = [];
  for (let i = 0; i < reads; i++) {
    step();
    results.push(await probe.read());
  }
  const count = (kind: ReadResult['kind']) => results.filter((r) => r.kind === kind).length;
  const temps = results.flatMap((r) => (r.kind === 'ok' ? [r.celsius] : []));
  const ms = results.map((r) => r.ms);
  const crc = count('crc');
  s.facts.push([
    'reads',
    `${reads}: ${temps.length} good, ${crc} CRC error${crc === 1 ? '' : 's'} (${Math.round((crc / reads) * 100)} %), ${count('powerOn')} at 85 degC, ${count('zero')} all-zero, ${count('absent')} no answer, ${count('error')} failed`,
  ]);
  s.facts.push(['conversion', `${Math.round(Math.min(...ms))}..${Math.round(Math.max(...ms))} ms a read`]);
  if (temps.length)
    s.facts.push([
      'values',
      `${c(Math.min(...temps))} .. ${c(Math.max(...temps))} (spread ${(Math.max(...temps) - Math.min(...temps)).toFixed(2)} degC)`,
    ]);
  s.facts.push(['power', parasite === null ? 'unknown' : parasite ? 'parasite (VDD to GND)' : 'external (VDD)']);
  const f: Finding[] = s.findings;
  if (count('powerOn') === reads)
    f.push({
      verdict: 'fail',
      text: `stuck at 85 degC: all ${reads} reads are the power-on value`,
      ...advice('powerOn'),
    });
  else if (count('powerOn'))
    f.push({
      verdict: 'warn',
      text: `${count('powerOn')} of ${reads} reads are the 85 degC power-on value`,
      ...advice('powerOn'),
    });
  if (count('zero'))
    f.push({
      verdict: 'fail',
      text: `${count('zero')} all-zero scratchpad(s): the data line is held low`,
      ...advice('powerOn'),
    });
  if (crc / reads >= CRC_WARN_RATE)
    f.push({
      verdict: crc / reads >= 0.5 ? 'fail' : 'warn',
      text: `${crc} of ${reads} reads failed their CRC (${Math.round((crc / reads) * 100)} %): a flaky bus`,
      ...advice('crc'),
    });
  if (count('absent'))
    f.push({ verdict: 'warn', text: `${count('absent')} of ${reads} reads had no answer`, ...advice('vanishing') });
  for (const r of results)
    if (r.kind === 'error') {
      f.push({ verdict: 'warn', text: `a read failed: ${r.message}` });
      break;
    }
  if (parasite) f.push({ verdict: 'warn', text: 'parasite powered', ...advice('parasite') });
  if (temps.length > 1 && Math.max(...temps) - Math.min(...temps) > SPREAD_WARN_C)
    f.push({ verdict: 'warn', text: `the values spread over more than ${SPREAD_WARN_C} degC in ${reads} reads` });
  if (Math.max(...ms) > CONVERSION_LIMIT_MS)
    f.push({ verdict: 'warn', text: `a conversion took ${Math.round(Math.max(...ms))} ms (at most 750 ms expected)` });
  if (!f.some((x) => x.verdict === 'warn' || x.verdict === 'fail'))
    f.push({ verdict: 'ok', text: `${temps.length} good reads, ${c(temps[temps.length - 1]!)}` });
  return s;
}

/** `step` runs before each read (the emulation advances its clock and re-renders its w1 tree). */
export async function busSection(bus: OneWireBus, reads: number, step: () => void = () => undefined): Promise<Section> {
  const s = section(`Bus ${bus.name} (${bus.kind})`);
  let addresses: RomAddress[] = [];
  try {
    addresses = await bus.search();
  } catch (e) {
    s.findings.push({ verdict: 'fail', text: `search failed: ${(e as Error).message}`, ...advice('vanishing') });
    return s;
  }
  const named = addresses.map(
    (a) => `${romToKernelName(a)} ${FAMILY_NAMES[romFamily(a)] ?? `family ${romFamily(a).toString(16)}`}`,
  );
  s.facts.push(['devices', named.join(', ') || 'none']);
  const unknown = addresses.filter((a) => FAMILY_NAMES[romFamily(a)] === undefined);
  if (unknown.length)
    s.findings.push({
      verdict: 'warn',
      text: `unknown device(s) ${unknown.map(romToKernelName).join(', ')}: noise or bad wiring?`,
      ...advice('noise'),
    });
  // An empty channel of a DS2482-800 is normal; no sensor on any bus is not (buildReport says so).
  if (addresses.length === 0) s.findings.push({ verdict: 'info', text: 'no device on this bus' });
  s.parts = [];
  for (const address of addresses.filter((a) => romFamily(a) === FAMILY.DS18B20))
    s.parts.push(await sensorSection(bus, address, reads, step));
  return s;
}
