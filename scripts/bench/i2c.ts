// Bus time per poll cycle of the I2C IO hub: 2 MCP23017 on one emulated bus, polled through the
// real drivers and the bus's transaction queue. The wire-time limit is the bits the cycle puts
// on the bus divided by the 100 kHz clock. The bus time is that plus the software time between
// transactions, measured on the emulator with no wire time (spinning the wire time out in real
// time measured the machine's scheduler instead, on a loaded machine).
import { performance } from 'node:perf_hooks';
import { SimI2cBus } from '../../drivers/sim/ds2482-sim.js';
import { SimMcp23017 } from '../../drivers/sim/mcp23017-sim.js';
import { I2cIoHub, I2C_POLL_MS } from '../../src/hardware/i2c-io-hub.js';
import { silentLogger } from '../../src/log.js';

const CLOCK_HZ = 100_000;

export interface I2cBenchFigures {
  /** Wire time plus the measured software time per cycle. */
  busMs: number;
  softwareMs: number;
  wireMs: number;
  bitsPerCycle: number;
}

export async function i2cPollBench(cycles = 200): Promise<I2cBenchFigures> {
  const sim = new SimI2cBus('bench');
  sim.attach(0x20, new SimMcp23017(0x20));
  sim.attach(0x21, new SimMcp23017(0x21));
  const hub = new I2cIoHub(silentLogger);
  const bus = await hub.addBus(sim);
  let now = 0;
  // Relays on both boards, then steady: the cycles measured are reads and read-back checks.
  hub.setOutputs('bench', 0x20, 'mcp23017', 0x00ff, 0x0005);
  hub.setOutputs('bench', 0x21, 'mcp23017', 0xffff, 0x8001);
  for (let i = 0; i < 3; i++) {
    now += I2C_POLL_MS;
    await hub.service(now);
  }
  const bits0 = bus.stats.wireBits;
  const t0 = performance.now();
  for (let i = 0; i < cycles; i++) {
    hub.io('bench', 0x20, 'mcp23017');
    hub.io('bench', 0x21, 'mcp23017');
    now += I2C_POLL_MS;
    await hub.service(now);
  }
  const softwareMs = (performance.now() - t0) / cycles;
  const bitsPerCycle = (bus.stats.wireBits - bits0) / cycles;
  await hub.close();
  const wireMs = (bitsPerCycle / CLOCK_HZ) * 1000;
  return { busMs: wireMs + softwareMs, softwareMs, wireMs, bitsPerCycle };
}
