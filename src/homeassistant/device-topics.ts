// The shapes of a controller's Home Assistant device on the broker, made of its service id and
// topic root: one definition each, for the publisher (discovery.ts, the alert binary_sensors) and
// for what finds them again (a swept config, a former id's device: former-ids.ts).

/** The retained `online`/`offline` topic every entity of the controller names as its availability. */
export function availabilityTopic(topicRoot: string, serviceId: string): string {
  return `${topicRoot}/ha/${serviceId}/availability`;
}

/** The retained state of a block's entities. */
export function blockStateTopic(topicRoot: string, serviceId: string, nid: number): string {
  return `${topicRoot}/ha/${serviceId}/${nid}`;
}

/** How every unique id of the controller's entities begins (block entities and alert binary_sensors). */
export function uniqueIdPrefix(serviceId: string): string {
  return `edgeblocks_${serviceId}_`;
}

/**
 * Whether a config (read as bytes, never parsed: ours are written by JSON.stringify, and a service
 * id needs no escape) names one of the controller's unique ids.
 */
export function namesUniqueIdOf(config: Buffer, serviceId: string): boolean {
  return config.includes(`"unique_id":"${uniqueIdPrefix(serviceId)}`);
}

/** The block nid of a block entity's object id (`<nid>_<key>`); null for another (an alert binary_sensor's). */
export function blockNidOf(objectId: string): number | null {
  const m = /^(\d+)_/.exec(objectId);
  return m ? Number(m[1]) : null;
}
