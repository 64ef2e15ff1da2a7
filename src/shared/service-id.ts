// The service-id rule: what a controller's id may be. The config's `serviceId` is checked by it
// (config-schema.ts) and so is every id read from the bus (the fleet list, src/fleet/peers.ts): an
// id names routes, topics, history keys and Home Assistant nodes, and a peer's id is shown to the
// user, so one made of anything else, or longer, is refused wherever it comes from.

/** Letters, digits and `_ - . ~` (URL-safe without escaping; an MQTT topic level; a file name). */
export const SERVICE_ID_PATTERN = '^[\\w.~-]+$';
/** At most this many characters (a DNS label's limit, so `<id>.local` can name the Pi). */
export const SERVICE_ID_MAX_LENGTH = 63;
export const SERVICE_ID_RULE = `1 to ${SERVICE_ID_MAX_LENGTH} letters, digits, _ - . ~`;

const PATTERN = new RegExp(SERVICE_ID_PATTERN);

export function isServiceId(id: string): boolean {
  return id.length > 0 && id.length <= SERVICE_ID_MAX_LENGTH && PATTERN.test(id);
}

/** The Home Assistant node id of a controller (its entities' `unique_id` prefix and discovery topic level). */
export function nodeId(serviceId: string): string {
  return `edgeblocks_${serviceId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}
