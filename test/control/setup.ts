// A block runtime on a manual clock and in-memory persistence, for the control block tests.
import { blockTypes } from '../../src/blocks/index.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { runFor, type TickHook } from '../../src/runtime/loop.js';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { BlockRuntime } from '../../src/runtime/runtime.js';
import type { AnyBlock, BlockTypeDef } from '../../src/runtime/types.js';

export interface Setup {
  runtime: BlockRuntime;
  clock: ManualClock;
  persistence: MemoryPersistence;
  create(id: string, type: string, data: Record<string, unknown>): void;
  patch(id: string, type: string, data: Record<string, unknown>): void;
  block(id: string): AnyBlock;
  /** Internal data of a block (controller units). */
  data(id: string): Record<string, any>;
  run(ms: number, stepMs?: number, hooks?: TickHook[]): Promise<void>;
  /** The simulated pin levels of a MockPins block (index 0 = channel 1). */
  pins(id: string): boolean[];
}

export function setup(opts: { persistence?: MemoryPersistence; types?: BlockTypeDef<any, any>[]; clock?: ManualClock } = {}): Setup {
  const clock = opts.clock ?? new ManualClock(0);
  const persistence = opts.persistence ?? new MemoryPersistence();
  const runtime = new BlockRuntime({
    serviceId: 'control-test',
    version: '0.0.0-test',
    types: [...blockTypes, ...(opts.types ?? [])],
    clock,
    persistence,
  });
  runtime.load();
  const block = (id: string) => {
    const b = runtime.find(id);
    if (!b) throw new Error(`no block '${id}'`);
    return b;
  };
  return {
    runtime,
    clock,
    persistence,
    create: (id, type, data) => void runtime.create({ id, type, data }),
    patch: (id, type, data) => void runtime.patch({ id, type, data }),
    block,
    data: (id) => block(id).data as Record<string, any>,
    run: (ms, stepMs = 100, hooks = []) => runFor(runtime, clock, ms, stepMs, hooks),
    pins: (id) => (block(id).state as { pins: boolean[] }).pins,
  };
}

export const link = (id: string) => ({ __objtype: 'Link', id });
