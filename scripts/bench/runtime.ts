// The in-process runtime benchmarks of `npm run bench` (scripts/bench.ts): the scheduler's tick and
// all/read on fermenter chains, heap per block, heap over create/delete churn, the cost of a create as blocks grow.
import { performance } from 'node:perf_hooks';
import { blockTypes } from '../../src/blocks/index.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { ALL, BlockRuntime } from '../../src/runtime/runtime.js';

/** How a figure is recorded against its target (the figures here are all at most their target). */
type Recorder = (name: string, value: number, unit: string, target: number) => void;

const link = (id: string) => ({ __objtype: 'Link', id });

/** A loaded runtime of every block type on a manual clock, persisting to memory. */
export function benchRuntime(): { clock: ManualClock; runtime: BlockRuntime } {
  const clock = new ManualClock(0);
  const runtime = new BlockRuntime({
    serviceId: 'bench',
    version: 'bench',
    types: blockTypes,
    clock,
    persistence: new MemoryPersistence(),
  });
  runtime.load();
  return { clock, runtime };
}

/** `n` fermenter chains: sensor, setpoint, heat and cool PID, PWMs, actuators, mutex (10 blocks each). */
export function chains(runtime: BlockRuntime, n: number): void {
  for (let i = 0; i < n; i++) {
    const c = (id: string, type: string, data: Record<string, unknown>) =>
      runtime.create({ id: `${id} ${i}`, type, data });
    c('pins', 'MockPins', {});
    c('sensor', 'TempSensorMock', { setting: 19 + (i % 3), fluctuations: [{ amplitude: 0.5, period: 600 }] });
    c('setpoint', 'SetpointSensorPair', {
      enabled: true,
      storedSetting: 20,
      sensorId: link(`sensor ${i}`),
      filter: 'FILTER_45s',
    });
    c('mutex', 'Mutex', {});
    const mutexed = { mutexed: { mutexId: link(`mutex ${i}`), extraHoldTime: 600, enabled: true } };
    c('heater', 'DigitalActuator', { hwDevice: link(`pins ${i}`), channel: 1, constraints: mutexed });
    c('cooler', 'DigitalActuator', {
      hwDevice: link(`pins ${i}`),
      channel: 2,
      constraints: { ...mutexed, minOn: { duration: 60, enabled: true }, minOff: { duration: 300, enabled: true } },
    });
    c('heat pwm', 'ActuatorPwm', { enabled: true, actuatorId: link(`heater ${i}`), period: 10 });
    c('cool pwm', 'ActuatorPwm', { enabled: true, actuatorId: link(`cooler ${i}`), period: 600 });
    c('heat pid', 'Pid', {
      enabled: true,
      inputId: link(`setpoint ${i}`),
      outputId: link(`heat pwm ${i}`),
      kp: 60,
      ti: 7200,
      td: 900,
    });
    c('cool pid', 'Pid', {
      enabled: true,
      inputId: link(`setpoint ${i}`),
      outputId: link(`cool pwm ${i}`),
      kp: -60,
      ti: 3600,
      td: 1500,
    });
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

export async function schedulerBench(record: Recorder): Promise<void> {
  const { clock, runtime } = benchRuntime();
  chains(runtime, 10);
  const durations: number[] = [];
  const simulated = 3600 * 1000;
  const started = performance.now();
  for (let t = 0; t < simulated; t += 100) {
    clock.advance(100);
    const t0 = performance.now();
    runtime.tick();
    durations.push(performance.now() - t0);
  }
  const wall = performance.now() - started;
  durations.sort((a, b) => a - b);
  record(`scheduler tick, ${runtime.blocks().length} blocks, p50`, percentile(durations, 0.5), 'ms', 1);
  record(`scheduler tick, ${runtime.blocks().length} blocks, p99`, percentile(durations, 0.99), 'ms', 1);
  record('one simulated hour of 10 fermenters (100 ms ticks)', wall / 1000, 's', 30);
  const t0 = performance.now();
  for (let i = 0; i < 100; i++) runtime.read(ALL).json();
  record(`all/read encoding of ${runtime.blocks().length} blocks`, (performance.now() - t0) / 100, 'ms', 20);
  // The same list as JSON text from the encoding cache, with a tick (values moving) between reads.
  let cached = 0;
  for (let i = 0; i < 100; i++) {
    clock.advance(100);
    runtime.tick();
    const t1 = performance.now();
    runtime.read(ALL).bytes().toString('utf8');
    cached += performance.now() - t1;
  }
  record(`all/read JSON text from the cache, a tick between reads`, cached / 100, 'ms', 5);
}

export async function memoryBench(record: Recorder): Promise<void> {
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  const { clock, runtime } = benchRuntime();
  chains(runtime, 100);
  for (let i = 0; i < 100; i++) {
    clock.advance(100);
    runtime.tick();
  }
  global.gc?.();
  const perBlock = (process.memoryUsage().heapUsed - before) / runtime.blocks().length;
  record(
    `heap per block (${runtime.blocks().length} blocks${global.gc ? '' : ', no --expose-gc'})`,
    perBlock / 1024,
    'KiB',
    16,
  );
}

/** 10 000 creates and deletes, each with an all/read between: the heap comes back to where it was. */
export async function churnBench(record: Recorder): Promise<void> {
  const { clock, runtime } = benchRuntime();
  chains(runtime, 2);
  const cycle = (i: number) => {
    runtime.create({ id: `churn ${i}`, type: 'TempSensorMock', data: { setting: 20 + (i % 10) } });
    clock.advance(10);
    runtime.tick();
    runtime.read(ALL).bytes().toString('utf8');
    runtime.delete({ id: `churn ${i}` });
  };
  for (let i = 0; i < 10000; i++) cycle(i); // warm-up: Map tables and compiled code reach their size
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  for (let i = 10000; i < 20000; i++) cycle(i);
  global.gc?.();
  record(
    `heap growth over 10 000 creates and deletes${global.gc ? '' : ', no --expose-gc'}`,
    (process.memoryUsage().heapUsed - before) / 1024,
    'KiB',
    256,
  );
}

/**
 * Whether a create costs more as blocks grow: two runtimes, one holding 500 blocks and one 5000
 * (fermenter chains: sensors, setpoints, PIDs driving PWMs driving actuators), take turns to
 * create six more chains one block at a time, with a scheduler tick between creates as the
 * control loop runs them, and delete them again. Taking turns in one process gives both the same
 * JIT, the same heap and the same machine load, so the ratio of their median rounds is the
 * growth and not the moment it was measured at (one pass from 500 to 5000 read 0.8-2.4 run to run).
 */
export async function growthBench(record: Recorder): Promise<void> {
  const chain = (i: string) => [
    { id: `sensor ${i}`, type: 'TempSensorMock', data: { setting: 20 } },
    {
      id: `setpoint ${i}`,
      type: 'SetpointSensorPair',
      data: { enabled: true, storedSetting: 20, sensorId: link(`sensor ${i}`) },
    },
    { id: `pins ${i}`, type: 'MockPins', data: {} },
    { id: `actuator ${i}`, type: 'DigitalActuator', data: { hwDevice: link(`pins ${i}`), channel: 1 } },
    { id: `pwm ${i}`, type: 'ActuatorPwm', data: { enabled: true, actuatorId: link(`actuator ${i}`), period: 10 } },
    {
      id: `pid ${i}`,
      type: 'Pid',
      data: { enabled: true, inputId: link(`setpoint ${i}`), outputId: link(`pwm ${i}`), kp: 60 },
    },
  ];
  const filled = (blocks: number) => {
    const rig = benchRuntime();
    for (let i = 0; rig.runtime.blocks().length < blocks; i++) {
      for (const body of chain(String(i))) rig.runtime.create(body);
      rig.clock.advance(10);
      rig.runtime.tick();
    }
    return { ...rig, rounds: [] as number[] };
  };
  const small = filled(500);
  const large = filled(5000);
  const round = (rig: typeof small, r: number) => {
    const bodies = Array.from({ length: 6 }, (_, k) => chain(`round ${r}.${k}`)).flat();
    let spent = 0;
    for (const body of bodies) {
      const t0 = performance.now();
      rig.runtime.create(body);
      spent += performance.now() - t0;
      rig.clock.advance(10);
      rig.runtime.tick();
    }
    for (const body of bodies.reverse()) rig.runtime.delete({ id: body.id });
    rig.rounds.push(spent / bodies.length);
  };
  for (let r = 0; r < 200; r++) {
    const [first, second] = r % 2 === 0 ? [small, large] : [large, small];
    round(first, r);
    round(second, r);
  }
  const median = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      0.5,
    );
  const early = median(small.rounds.slice(20));
  const late = median(large.rounds.slice(20));
  console.log(`median create at 500 blocks ${early.toFixed(4)} ms, at 5000 blocks ${late.toFixed(4)} ms`);
  record('median create at 5000 blocks / at 500 blocks', late / early, 'ratio', 1.5);
}
