// Bus time of the I2C poll cycles, the real drivers on the emulators through the bus's one
// transaction queue (drivers/i2c/queue.ts), at 100 kHz:
// - sensors: 4 SHT4x + 1 ADS1115 (one input) on one bus, polled once a second (POLL_MS);
// - IO: 2 MCP23017 on one bus through the IO hub, polled every I2C_POLL_MS.
// The wire time is the bits the queue counted for a cycle divided by the clock. The limit is a
// tenth of the poll period: the bus must carry a whole cycle with room to spare. For the IO hub
// the bus time (wire time plus the software time between transactions, measured on the
// emulator with no wire time) is also held against the wire time.
import { performance } from 'node:perf_hooks';
import { Ads1x15 } from '../../drivers/i2c/ads1115.js';
import { QueuedI2cBus, I2C_STANDARD_HZ } from '../../drivers/i2c/queue.js';
import { Sht4x } from '../../drivers/i2c/sht4x.js';
import { Ads1115Sim } from '../../drivers/sim/ads1115-sim.js';
import { SimI2cBus } from '../../drivers/sim/ds2482-sim.js';
import { SimMcp23017 } from '../../drivers/sim/mcp23017-sim.js';
import { Sht4xSim } from '../../drivers/sim/sht4x-sim.js';
import { I2cIoHub, I2C_POLL_MS } from '../../src/hardware/i2c-io-hub.js';
import { POLL_MS } from '../../src/hardware/i2c-sensors.js';
import { silentLogger } from '../../src/log.js';

type Record = (name: string, value: number, unit: string, target: number) => void;

/** The share of its poll period a cycle may hold the bus. */
const BUS_SHARE = 0.1;

export async function i2cPollBench(record: Record): Promise<void> {
  await sensorCycle(record);
  await ioCycle(record);
}

async function sensorCycle(record: Record): Promise<void> {
  const sim = new SimI2cBus('bench');
  const addresses = [0x44, 0x45, 0x46, 0x47];
  // 0x47 is not an SHT4x address on real parts; the emulator does not care, and it keeps 4 on one bus.
  for (const a of addresses) sim.attach(a, new Sht4xSim(a));
  sim.attach(0x48, new Ads1115Sim(0x48));
  const q = new QueuedI2cBus(sim, I2C_STANDARD_HZ);
  const shts = addresses.map((a) => new Sht4x(q, a));
  const ads = new Ads1x15(q, 0x48);
  for (const d of [...shts, ads]) await d.init();
  const cycles = 20;
  const before = q.wireMs;
  const t0 = performance.now();
  for (let i = 0; i < cycles; i++) await Promise.all([...shts.map((d) => d.measure()), ads.convert(0, 1)]);
  const wall = (performance.now() - t0) / cycles;
  record(
    'I2C bus time per poll, 4 SHT4x + 1 ADS1115 @100 kHz',
    (q.wireMs - before) / cycles,
    'ms',
    POLL_MS * BUS_SHARE,
  );
  record('I2C poll cycle wall time incl. conversions (emulated)', wall, 'ms', POLL_MS * BUS_SHARE);
}

async function ioCycle(record: Record, cycles = 200): Promise<void> {
  const sim = new SimI2cBus('bench');
  sim.attach(0x20, new SimMcp23017(0x20));
  sim.attach(0x21, new SimMcp23017(0x21));
  const hub = new I2cIoHub(silentLogger);
  const bus = await hub.addBus(new QueuedI2cBus(sim, I2C_STANDARD_HZ));
  let now = 0;
  // Relays on both boards, then steady: the cycles measured are reads and read-back checks.
  hub.setOutputs('bench', 0x20, 'MCP23017', 0x00ff, 0x0005);
  hub.setOutputs('bench', 0x21, 'MCP23017', 0xffff, 0x8001);
  for (let i = 0; i < 3; i++) {
    now += I2C_POLL_MS;
    await hub.service(now);
  }
  const bits0 = bus.stats.wireBits;
  const wire0 = bus.wireMs;
  const t0 = performance.now();
  for (let i = 0; i < cycles; i++) {
    hub.io('bench', 0x20, 'MCP23017');
    hub.io('bench', 0x21, 'MCP23017');
    now += I2C_POLL_MS;
    await hub.service(now);
  }
  const softwareMs = (performance.now() - t0) / cycles;
  const bitsPerCycle = (bus.stats.wireBits - bits0) / cycles;
  const wireMs = (bus.wireMs - wire0) / cycles;
  await hub.close();
  record(
    `I2C poll cycle, 2 MCP23017 at 100 kHz: wire-time limit (${bitsPerCycle} bits / clock)`,
    wireMs,
    'ms',
    I2C_POLL_MS * BUS_SHARE,
  );
  record(
    'I2C poll cycle, 2 MCP23017 at 100 kHz: bus time / wire-time limit',
    (wireMs + softwareMs) / wireMs,
    'ratio',
    1.5,
  );
}
