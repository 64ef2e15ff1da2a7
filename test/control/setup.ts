// The test runtime (test/helpers/runtime.ts) with shorthands for the control block tests.
import type { ManualClock } from '../../src/runtime/clock.js';
import { runFor, type TickHook } from '../../src/runtime/loop.js';
import type { MemoryPersistence } from '../../src/runtime/persistence.js';
import type { BlockRuntime } from '../../src/runtime/runtime.js';
import type { AnyBlock } from '../../src/runtime/types.js';
import { testRuntime, type TestRuntimeOptions } from '../helpers/runtime.js';

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

export function setup(opts: TestRuntimeOptions = {}): Setup {
  const { runtime, clock, persistence } = testRuntime(opts);
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
