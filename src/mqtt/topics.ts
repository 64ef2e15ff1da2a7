// Topic names of DESIGN §5, under the configured root.
export type ControllerAction = 'create' | 'write' | 'patch' | 'delete';

export const CONTROLLER_ACTIONS: readonly ControllerAction[] = ['create', 'write', 'patch', 'delete'];

export interface Topics {
  root: string;
  state: string;
  patch: string;
  history: string;
  controller(action: ControllerAction): string;
  /** The topic Brewblox services write blocks on; handled like `controller`. */
  sparkBlocks(action: ControllerAction): string;
  datastore(topLevelNamespace: string): string;
}

export function topicsFor(root: string, serviceId: string): Topics {
  return {
    root,
    state: `${root}/state/${serviceId}`,
    patch: `${root}/state/${serviceId}/patch`,
    history: `${root}/history/${serviceId}`,
    controller: (action) => `${root}/controller/blocks/${action}`,
    sparkBlocks: (action) => `${root}/spark/blocks/${action}`,
    datastore: (ns) => `${root}/datastore/${ns}`,
  };
}

/** MQTT topic filter matching: `+` is one level, a trailing `#` is any number of levels (also none). */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return i === f.length - 1;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}
