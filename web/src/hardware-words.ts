// The hardware page in words (issue 47.3): error counters named and with what to do, the
// simulated plant rounded with units. What cards say of devices is in device-words.ts. Pure,
// tested under Node.

export { errorWords, hexAddress, oneWireName, thermocoupleFaultWords } from './device-words.js';

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

/**
 * The 1-Wire devices blocks use that are not read, as lines: those no bus answers for apart from
 * those that answer but whose replies arrive damaged (`garbled`, a subset of `missing`): for
 * those, the wiring is to check, not whether they are plugged in. `label` names one.
 */
export function missingLines(
  missing: readonly string[],
  garbled: readonly string[] | undefined,
  label: (address: string) => string,
): string[] {
  const damaged = new Set(garbled ?? []);
  const gone = missing.filter((a) => !damaged.has(a));
  const answering = missing.filter((a) => damaged.has(a));
  return [
    ...(gone.length ? [`Not found on any bus (unplugged, or a loose wire): ${gone.map(label).join(', ')}`] : []),
    ...(answering.length
      ? [
          `Answer but their replies fail their checks (CRC): a noisy bus, a long cable or a failing chip: ${answering.map(label).join(', ')}`,
        ]
      : []),
  ];
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
