// The hardware status in words (issue 47.3 and 47.4): error counters named and with what to do,
// error codes of the drivers explained, addresses in the notation of their datasheets (I2C
// 0x60, 1-Wire as the kernel names it, 28-00000000b001), the simulated plant rounded with units,
// thermocouple faults in words. Pure, tested under Node.

export interface CounterWords {
  title: string;
  /** What it means and what to do, for a count above zero; null for a plain count (searches, writes). */
  help: string | null;
}

const COUNTERS: Readonly<Record<string, CounterWords>> = {
  crcErrors: {
    title: 'CRC errors',
    help: 'readings arrived damaged: usually noise or a long cable. Use twisted pair, keep the bus away from mains wires, check the 4.7 kΩ pull-up.',
  },
  crcRetries: { title: 'CRC retries', help: null },
  presenceErrors: {
    title: 'No answer',
    help: 'no device answered on the bus: a sensor is unplugged or a wire is loose. Check the connectors.',
  },
  shortErrors: {
    title: 'Shorts',
    help: 'the data line is shorted to ground: look for a damaged cable or a wet connector.',
  },
  readErrors: {
    title: 'Bad readings',
    help: 'a sensor gave a value that is not a measurement (such as the 85 °C power-on value): usually a power dip. Check its supply.',
  },
  searches: { title: 'Searches', help: null },
  failures: {
    title: 'Failures',
    help: 'the chip did not answer or the transfer failed: check its wiring, its address and the bus pull-ups.',
  },
  verifyErrors: {
    title: 'Read-back errors',
    help: 'an output read back different from what was written: the chip was reset or the bus is noisy. Check its supply and wiring.',
  },
  resets: {
    title: 'Resets',
    help: 'the chip was set up again after a fault; frequent resets point at its power supply.',
  },
  writes: { title: 'Writes', help: null },
  polls: { title: 'Reads', help: null },
  errors: { title: 'Errors', help: 'failed reads: see the last error.' },
  dropped: {
    title: 'Refused',
    help: 'requests refused because too many were waiting: the bus is too slow or stuck. Check for a chip holding the bus.',
  },
  transactions: { title: 'Transfers', help: null },
};

/** A counter's title and help; a name the table does not know is worded from the name. */
export function counterWords(name: string): CounterWords {
  return (
    COUNTERS[name] ?? {
      title: name
        .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
        .toLowerCase()
        .replace(/^./, (c) => c.toUpperCase()),
      help: /error|fail/i.test(name) ? 'see the last error.' : null,
    }
  );
}

/** Counters are the numeric fields of a bus whose names say they count errors or retries. */
export const isErrorCounter = (k: string, v: unknown): boolean =>
  typeof v === 'number' && /errors?$|retries$|failures$|resets$|dropped$/i.test(k);

/** What the code in front of a driver's error (`CRC: …`, `NACK: …`) means, and what to do. */
const CODES: Readonly<Record<string, string>> = {
  CRC: 'a reading arrived damaged (noise on the bus)',
  NACK: 'the chip does not answer at its address: check its wiring and power',
  BUS: 'the bus itself failed: check the wiring and pull-ups',
  CLAIMED: 'a kernel driver holds this address; it is left alone',
  POWER_ON: 'the chip gave its power-on value, not a measurement (a power dip)',
  IDENTITY: 'the chip at this address is not the one expected',
  TIMEOUT: 'the chip did not finish in time',
  FAULT: 'the chip reports a fault',
  NO_PRESENCE: 'no device answered on the bus',
  SHORT: 'the bus is shorted',
  INVALID_DATA: 'the device sent data that is not a valid reading',
};

/** A driver's error text in words: the code explained, the detail kept. */
export function errorWords(text: string | null | undefined): string {
  if (!text) return '';
  const m = /^([A-Z_]+): (.*)$/.exec(text);
  if (!m || !CODES[m[1]!]) return text;
  const fault = thermocoupleFaultWords(text);
  return fault ?? `${CODES[m[1]!]} (${m[2]})`;
}

/** I2C addresses as datasheets write them: 96 → "0x60". */
export const hexAddress = (a: unknown): string =>
  typeof a === 'number' ? `0x${a.toString(16).padStart(2, '0')}` : String(a ?? '—');

/**
 * A 1-Wire ROM as the Linux kernel names the device (/sys/bus/w1/devices): the family, a dash,
 * and the serial's six bytes most significant first: `2801b00000000066` → `28-00000000b001`.
 */
export function oneWireName(address: unknown): string {
  if (typeof address !== 'string' || !/^[0-9a-f]{16}$/i.test(address)) return String(address ?? '—');
  const bytes = address.toLowerCase().match(/../g)!;
  return `${bytes[0]}-${bytes.slice(1, 7).reverse().join('')}`;
}

const FAULTS: Readonly<Record<string, string>> = {
  'open circuit':
    'thermocouple open: it is not connected or a wire is broken. Check the thermocouple and its terminals.',
  'short to GND': 'thermocouple shorted to ground: a wire touches the case or ground. Check the insulation.',
  'short to VCC': 'thermocouple shorted to the supply: a wire touches the supply. Check the insulation.',
  'fault bit without detail':
    'the converter reports a thermocouple fault without saying which: check the thermocouple.',
  'open or shorted': 'thermocouple open or shorted: check the thermocouple, its terminals and insulation.',
};

/** A thermocouple fault (the MAX31850's `fault`, or the MCP9600's "open or shorted" error) in words. */
export function thermocoupleFaultWords(fault: string | null | undefined): string | null {
  if (!fault) return null;
  for (const [k, words] of Object.entries(FAULTS)) if (fault.includes(k)) return words;
  return null;
}

const round = (v: unknown, digits: number): string =>
  typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits) : '—';

/** The simulated plant as rows of words: temperatures to 0.1 °C, heater and cooler on or off, the time. */
export function plantRows(plant: Record<string, unknown>): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  const temp = (k: string, label: string) => k in plant && rows.push([label, `${round(plant[k], 1)} °C`]);
  temp('beer', 'Beer');
  temp('air', 'Fridge air');
  temp('ambient', 'Room');
  const output = (k: string, label: string) => {
    if (!(k in plant)) return;
    // `heater` is its duty (0..1) during the last step; `heaterOn` whether it is on now.
    const duty = typeof plant[k] === 'number' ? (plant[k] as number) : null;
    const on = typeof plant[`${k}On`] === 'boolean' ? plant[`${k}On`] : duty === null ? null : duty > 0;
    const part = duty !== null && duty > 0 && duty < 1 ? ` (${Math.round(duty * 100)} %)` : '';
    rows.push([label, `${on === true ? 'on' : on === false ? 'off' : '—'}${part}`]);
  };
  output('heater', 'Heater');
  output('cooler', 'Cooler');
  if ('fermentationW' in plant) rows.push(['Fermentation heat', `${round(plant.fermentationW, 0)} W`]);
  if (typeof plant.time === 'number') rows.push(['Simulated for', `${Math.round(plant.time)} s`]);
  return rows;
}
