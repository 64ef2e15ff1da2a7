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

/** The config's topic root: levels of the service id's characters, no wildcards, no empty level. */
export const TOPIC_ROOT_PATTERN = '^[\\w.~-]+(/[\\w.~-]+)*$';

const ROOT = new RegExp(TOPIC_ROOT_PATTERN);

export function isTopicRoot(root: string): boolean {
  return ROOT.test(root);
}

/**
 * The Home Assistant node id of a controller (its entities' discovery topic level and device
 * identifier). Home Assistant takes only letters, digits, `_` and `-` there, so an id made of
 * those keeps them (`edgeblocks_<id>`, what the fleet ACL's `edgeblocks_%u` names); any other id
 * is written `edgeblocks-<id>` with `_` as `__`, `.` as `_d` and `~` as `_t`, so that two ids
 * never share a node (`ferm.1` and `ferm_1` shared one: one device, and each controller's
 * configs overwrote or swept the other's).
 */
export function nodeId(serviceId: string): string {
  if (/^[A-Za-z0-9_-]+$/.test(serviceId)) return `edgeblocks_${serviceId}`;
  return `edgeblocks-${serviceId.replace(/[_.~]/g, (c) => NODE_ESCAPES[c]!)}`;
}

const NODE_ESCAPES: Record<string, string> = { _: '__', '.': '_d', '~': '_t' };

/** The node id an id with `.` or `~` had before nodeId kept ids apart (shared with other ids): its configs there are cleared. */
export function legacyNodeId(serviceId: string): string {
  return `edgeblocks_${serviceId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}
