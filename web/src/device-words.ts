// Devices in words, for cards and the hardware page (issue 47.3, 47.4): the drivers' error codes
// explained, addresses in the notation of their datasheets (I2C 0x60, 1-Wire as the kernel names
// it, 28-00000000b001), thermocouple faults in words. Pure, tested under Node.

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
