// State and patch envelopes (DESIGN §5): `{key, type, ttl, data}`.
import type { BlockJson } from '../runtime/runtime.js';
import type { SparkStatusDescription } from '../service/spark-status.js';

export const STATE_TYPE = 'Spark.state';
export const PATCH_TYPE = 'Spark.patch';

/** The Spark status description (service/spark-status.ts) plus edgeblocks' own fields. */
export interface ControllerStatus extends SparkStatusDescription {
  online: boolean;
  serviceId: string;
  version: string;
  [extra: string]: unknown;
}

export interface StateData {
  status: ControllerStatus;
  blocks: BlockJson[];
  relations: unknown[];
  claims: unknown[];
  /**
   * The block set's id (BlockPersistence.blockSet), as the event stream's state carries it: new
   * after a backup load or on another data dir, so a reader that keeps blocks by nid tells a
   * rename from another block that took the nid. Not in the offline message (no blocks).
   */
  blockSet?: string;
}

export interface Envelope<T> {
  key: string;
  type: string;
  ttl: string;
  data: T;
}

export function stateMessage(key: string, ttl: string, data: StateData): Envelope<StateData> {
  return { key, type: STATE_TYPE, ttl, data };
}

/** The last will and the clean-shutdown message: the offline status, no blocks. */
export function offlineMessage(key: string, ttl: string, status: ControllerStatus): Envelope<StateData> {
  return stateMessage(key, ttl, { status, blocks: [], relations: [], claims: [] });
}

/** `blockSet` as in the state: a backup load's own patch has the new one. */
export function patchMessage(
  key: string,
  ttl: string,
  changed: BlockJson[],
  deleted: string[],
  blockSet: string,
): Envelope<{ changed: BlockJson[]; deleted: string[]; blockSet: string }> {
  return { key, type: PATCH_TYPE, ttl, data: { changed, deleted, blockSet } };
}
