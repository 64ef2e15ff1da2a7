// What clients need to know of a block type besides its fields: declared in its defineBlock and
// published in the OpenAPI document (x-role), so the dashboard, Home Assistant and backups read
// it from the type instead of keeping tables by type name.

/** Where the dashboard groups a type. */
export type BlockRole = 'sensor' | 'setpoint' | 'controller' | 'output' | 'io' | 'system';

export const BLOCK_ROLES: readonly BlockRole[] = ['sensor', 'setpoint', 'controller', 'output', 'io', 'system'];

/** One Home Assistant entity a block of the type becomes. */
export interface EntitySpec {
  component: 'sensor' | 'number' | 'switch';
  /** Suffix of the object id and unique id: stable per block type. */
  key: string;
  /** Field shown as the state. */
  field: string;
  /** Appended to the block id to name the entity (none: the block id alone). */
  label?: string;
  kind: 'temperature' | 'percent' | 'digital' | 'humidity' | 'pressure';
  /** The field a command writes (number and switch only). */
  write?: string;
  min?: number;
  max?: number;
  step?: number;
  /** The entity exists only for blocks whose data passes (a chip that measures it); absent: always. */
  when?: (data: Record<string, unknown>) => boolean;
}
