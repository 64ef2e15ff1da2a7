// The one in-memory block runtime of the tests: a manual clock, in-memory persistence and unit
// preferences the test can change (`units.temperature = 'degF'`). The control-block setup
// (test/control/setup.ts) and the emulated fermenter (test/helpers/fermenter.ts) build on it.
import { blockTypes } from '../../src/blocks/index.js';
import { DEFAULT_UNITS, type UnitPrefs } from '../../src/codec/units.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { BlockRuntime } from '../../src/runtime/runtime.js';
import type { BlockTypeDef } from '../../src/runtime/types.js';

export interface TestRuntimeOptions {
  /** Test-only block types, registered beside the built-in ones. */
  extraTypes?: BlockTypeDef<any, any>[];
  /** Reuse to restart on the same stored blocks. */
  persistence?: MemoryPersistence;
  clock?: ManualClock;
  units?: UnitPrefs;
}

export interface TestRuntime {
  runtime: BlockRuntime;
  clock: ManualClock;
  persistence: MemoryPersistence;
  units: UnitPrefs;
}

export function testRuntime(opts: TestRuntimeOptions = {}): TestRuntime {
  const clock = opts.clock ?? new ManualClock(0);
  const persistence = opts.persistence ?? new MemoryPersistence();
  const units: UnitPrefs = opts.units ?? { ...DEFAULT_UNITS };
  const runtime = new BlockRuntime({
    serviceId: 'test-svc',
    version: '0.0.0-test',
    types: [...blockTypes, ...(opts.extraTypes ?? [])],
    clock,
    persistence,
    units: () => units,
  });
  runtime.load();
  return { runtime, clock, persistence, units };
}
