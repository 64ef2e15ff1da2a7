// Patch events: after every block change (REST, MQTT, discovery, backup load), the changed
// blocks and deleted ids on `R/state/{serviceId}/patch`, with the block set's id (state.ts). Not
// retained, not queued.
import type { BlockRuntime, ChangeEvent } from '../runtime/runtime.js';
import type { MqttConnection } from './connection.js';
import { patchMessage } from './state.js';
import type { Topics } from './topics.js';

export function publishPatches(opts: {
  conn: MqttConnection;
  runtime: BlockRuntime;
  topics: Topics;
  key: string;
  ttl: string;
}): () => void {
  const { conn, runtime, topics, key, ttl } = opts;
  const onChange = (ev: ChangeEvent) => {
    if (!conn.connected) return;
    const changed = ev.changed.map((b) => runtime.read(b).json());
    conn.publish(topics.patch, JSON.stringify(patchMessage(key, ttl, changed, ev.deleted, runtime.blockSet())));
  };
  runtime.on('change', onChange);
  return () => runtime.off('change', onChange);
}
