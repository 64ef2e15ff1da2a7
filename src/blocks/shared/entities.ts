// Home Assistant entities several block types share.
import type { EntitySpec } from '../../runtime/traits.js';

/** Every temperature sensor: its value, as a Home Assistant temperature sensor. */
export const TEMP_SENSOR_ENTITIES: readonly EntitySpec[] = [
  { component: 'sensor', key: 'value', field: 'value', kind: 'temperature' },
];
