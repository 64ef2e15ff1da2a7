// Enum values of the API in words, for selects and read-outs: `STATE_INACTIVE` → "Off",
// `CLAIMED` → "Driven by Heat PWM", `FILTER_45s` → "Settles in 45 s". Values not in the table
// are worded from their name (the prefix the values share dropped, underscores as spaces), so
// a value the service adds still reads as words. Pure, tested under Node.
import { driverOf } from '../../src/shared/driven.js';
import type { Block } from './block-types.js';

const WORDS: Readonly<Record<string, string>> = {
  STATE_INACTIVE: 'Off',
  STATE_ACTIVE: 'On',
  STATE_UNKNOWN: 'Unknown',
  STATE_REVERSE: 'Reverse',
  STORED: 'Its own setting (by hand)',
  CLAIMED: 'Driven by another block (off while none drives it)',
  ST_OFF: 'No soft start',
  ST_FAST: 'Fast soft start',
  ST_MEDIUM: 'Medium soft start',
  ST_SLOW: 'Slow soft start',
  ST_CUSTOM: 'Custom soft start (time below)',
  FILTER_NONE: 'No filter',
  FILTER_15s: 'Settles in 15 s',
  FILTER_45s: 'Settles in 45 s',
  FILTER_90s: 'Settles in 90 s',
  FILTER_3m: 'Settles in 3 min',
  FILTER_10m: 'Settles in 10 min',
  FILTER_30m: 'Settles in 30 min',
  CONNECT_ACTUATOR: 'Eight switched outputs',
  CONNECT_VALVE: 'Two motor valves',
  SENSOR_COMBI_FUNC_AVG: 'Average',
  SENSOR_COMBI_FUNC_MIN: 'Lowest',
  SENSOR_COMBI_FUNC_MAX: 'Highest',
  REF_SETTING: 'Its setting',
  REF_VALUE: 'Its measured value',
  DIRECT: 'Follows the input',
  ALTERNATING: 'Toggles at each press',
  PWM_FREQ_80HZ: '80 Hz',
  PWM_FREQ_100HZ: '100 Hz',
  PWM_FREQ_200HZ: '200 Hz',
  PWM_FREQ_2000HZ: '2000 Hz',
  GAIN_6V144: '±6.144 V',
  GAIN_4V096: '±4.096 V',
  GAIN_2V048: '±2.048 V',
  GAIN_1V024: '±1.024 V',
  GAIN_0V512: '±0.512 V',
  GAIN_0V256: '±0.256 V',
  VOLT: 'Volts (V)',
  BAR: 'bar',
  PSI: 'psi',
  PERCENT: 'Percent (%)',
  DEG_C: 'Degrees Celsius (°C)',
  TEMP_CELSIUS: '°C',
  TEMP_FAHRENHEIT: '°F',
  OP_VALUE_IS: 'state is',
  OP_VALUE_IS_NOT: 'state is not',
  OP_DESIRED_IS: 'wanted state is',
  OP_DESIRED_IS_NOT: 'wanted state is not',
  OP_VALUE_LE: 'value ≤',
  OP_VALUE_GE: 'value ≥',
  OP_SETTING_LE: 'setting ≤',
  OP_SETTING_GE: 'setting ≥',
};

/** Words that depend on the block type and field: a valve opens and closes. */
const BY_FIELD: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'MotorValve.storedState': { STATE_ACTIVE: 'Open', STATE_INACTIVE: 'Closed' },
  'MotorValve.desiredState': { STATE_ACTIVE: 'Open', STATE_INACTIVE: 'Closed' },
  'MotorValve.state': { STATE_ACTIVE: 'Open', STATE_INACTIVE: 'Closed' },
  'TempSensorThermocouple.thermocoupleType': Object.fromEntries(
    ['K', 'J', 'T', 'N', 'S', 'E', 'B', 'R'].map((k) => [k, `Type ${k}`]),
  ),
};

/** The prefix every value shares up to an underscore (`STATE_`, `FILTER_`), dropped from the words. */
function sharedPrefix(values: readonly string[]): string {
  if (values.length < 2) return '';
  let prefix = values[0]!;
  for (const v of values) while (!v.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix.slice(0, prefix.lastIndexOf('_') + 1);
}

/** `VALVE_HALF_OPEN_IDLE` (of VALVE_* values) → "Half open idle". */
function fromName(value: string, values: readonly string[]): string {
  const words = value.slice(sharedPrefix(values).length).replace(/_/g, ' ').trim() || value;
  // Chip and model names (BME280, SHT4X) stay as they are.
  if (/\d/.test(words) && !words.includes(' ')) return words;
  return words.charAt(0).toUpperCase() + words.slice(1).toLowerCase();
}

/**
 * `value` of field `field` of `block` (or of a new block of type `type`) in words. `CLAIMED`
 * names the block that drives it, when one does.
 */
export function enumWord(
  value: string,
  where: { type: string; field: string; block?: Block; values?: readonly string[] },
): string {
  const driver = value === 'CLAIMED' && where.block ? driverOf(where.block.data) : null;
  if (driver !== null) return `Driven by ${driver}`;
  return BY_FIELD[`${where.type}.${where.field}`]?.[value] ?? WORDS[value] ?? fromName(value, where.values ?? []);
}
