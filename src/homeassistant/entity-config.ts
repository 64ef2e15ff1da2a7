// The discovery config of one entity (Home Assistant's abbreviations are not used, for
// readability), and the device every entity of a controller belongs to: the block entities
// (discovery.ts) and the alert binary_sensors (alerts/channels/mqtt.ts) name the same one.
import { uniqueIdPrefix } from './device-topics.js';
import type { BlockJson } from '../runtime/runtime.js';
import { nodeId } from '../shared/service-id.js';
import { DRIVEN_BY_KEY, type Announcement, type EntitySpec } from './entities.js';

/** The Home Assistant device of the controller `serviceId`. */
export function haDevice(serviceId: string, version: string): Record<string, unknown> {
  return {
    identifiers: [nodeId(serviceId)],
    name: `edgeblocks ${serviceId}`,
    manufacturer: 'edgeblocks',
    model: 'block runtime',
    sw_version: version,
  };
}

export interface EntityConfigContext {
  serviceId: string;
  version: string;
  /** The block's retained state topic. */
  stateTopic: string;
  availabilityTopic: string;
  /** Taken by Home Assistant only the first time it sees the unique id: it keeps the entity id after renames. */
  defaultEntityId: string;
}

export function entityConfig(
  spec: EntitySpec,
  block: BlockJson,
  announced: Announcement,
  ctx: EntityConfigContext,
): Record<string, unknown> {
  const { serviceId, version } = ctx;
  const cfg: Record<string, unknown> = {
    name: spec.label ? `${block.id} ${spec.label}` : block.id,
    unique_id: `${uniqueIdPrefix(serviceId)}${block.nid}_${spec.key}`,
    default_entity_id: ctx.defaultEntityId,
    state_topic: ctx.stateTopic,
    // A switch compares the rendered value with payload_on/off ('true'/'false', as JSON
    // renders them); a null state must render 'None', Home Assistant's unknown ('null' matches
    // nothing, and the switch would keep showing its last state: a relay board pulled off).
    // Jinja renders None as 'None' by itself, so the other entities need no more.
    value_template:
      spec.component === 'switch'
        ? `{{ value_json.${spec.key} | tojson if value_json.${spec.key} is not none else 'None' }}`
        : `{{ value_json.${spec.key} }}`,
    availability: [{ topic: ctx.availabilityTopic }],
    device: haDevice(serviceId, version),
    origin: { name: 'edgeblocks', sw_version: version },
  };
  if (announced.haUnit) cfg.unit_of_measurement = announced.haUnit;
  if (spec.kind === 'temperature' || spec.kind === 'humidity' || spec.kind === 'pressure') cfg.device_class = spec.kind;
  if (spec.component === 'sensor') cfg.state_class = 'measurement';
  if (spec.write) {
    cfg.command_topic = `${ctx.stateTopic}/set/${spec.key}`;
    // Who drives the block, as an attribute: a command is refused while one does (discovery.ts).
    cfg.json_attributes_topic = ctx.stateTopic;
    // A state retained by a version before this key (read before ours replaces it) names none.
    cfg.json_attributes_template = `{{ {'driven_by': value_json.${DRIVEN_BY_KEY} | default(none)} | tojson }}`;
  }
  if (spec.component === 'number')
    Object.assign(cfg, { min: announced.min, max: announced.max, step: announced.step, mode: 'box' });
  if (spec.component === 'switch') Object.assign(cfg, { payload_on: 'true', payload_off: 'false' });
  return cfg;
}
