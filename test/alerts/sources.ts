// What the Conditions read, all healthy: a test overrides the one source it is about.
import type { ConditionSources } from '../../src/alerts/conditions.js';
import type { BlockRuntime } from '../../src/runtime/runtime.js';

/** A runtime with no blocks, for conditions that are not about blocks. */
export const noBlocks = { blocks: () => [], units: { temperature: 'degC' } } as unknown as BlockRuntime;

export function healthySources(
  runtime: BlockRuntime,
  dataDir: string,
  over: Partial<ConditionSources> = {},
): ConditionSources {
  return {
    runtime,
    controlEnabled: () => true,
    brokerConnected: () => null,
    historyOk: () => null,
    hardware: () => ({ missing: [], pending: [], buses: [] }),
    dataDir,
    ...over,
  };
}
