// An in-memory runtime with a manual clock, for unit tests of blocks and the scheduler.
import { blockTypes } from '../../src/blocks/index.js';
import type { UnitPrefs } from '../../src/codec/units.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { BlockRuntime } from '../../src/runtime/runtime.js';
import type { BlockTypeDef } from '../../src/runtime/types.js';

export function testRuntime(opts: { types?: BlockTypeDef<any, any>[]; persistence?: MemoryPersistence; units?: UnitPrefs } = {}) {
  const clock = new ManualClock(0);
  const persistence = opts.persistence ?? new MemoryPersistence();
  const units: UnitPrefs = opts.units ?? { temperature: 'degC' };
  const runtime = new BlockRuntime({
    serviceId: 'test-svc',
    version: '0.0.0-test',
    types: opts.types ?? blockTypes,
    clock,
    persistence,
    units: () => units,
  });
  runtime.load();
  return { runtime, clock, persistence, units };
}
