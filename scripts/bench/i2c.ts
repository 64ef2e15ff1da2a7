// Bus time of one I2C poll cycle: 4 SHT4x + 1 ADS1115 (one input) on one bus at 100 kHz, the
// real drivers on the emulators through the per-bus queue. The limit is the poll period: the
// bus must carry a whole cycle within it with room to spare (here: at most 10 % of it).
import { Ads1x15 } from '../../drivers/i2c/ads1115.js';
import { I2cQueue, I2C_STANDARD_HZ } from '../../drivers/i2c/bus-queue.js';
import { Sht4x } from '../../drivers/i2c/sht4x.js';
import { Ads1115Sim } from '../../drivers/sim/ads1115-sim.js';
import { SimI2cBus } from '../../drivers/sim/ds2482-sim.js';
import { Sht4xSim } from '../../drivers/sim/sht4x-sim.js';
import { POLL_MS } from '../../src/hardware/i2c-sensors.js';

export async function i2cPollBench(record: (name: string, value: number, unit: string, target: number) => void): Promise<void> {
  const sim = new SimI2cBus('bench');
  const addresses = [0x44, 0x45, 0x46, 0x47];
  // 0x47 is not an SHT4x address on real parts; the emulator does not care, and it keeps 4 on one bus.
  for (const a of addresses) sim.attach(a, new Sht4xSim(a));
  sim.attach(0x48, new Ads1115Sim(0x48));
  const q = new I2cQueue(sim, I2C_STANDARD_HZ);
  const shts = addresses.map((a) => new Sht4x(q, a));
  const ads = new Ads1x15(q, 0x48);
  for (const d of [...shts, ads]) await d.init();
  const cycles = 20;
  const before = q.stats.wireMicros;
  const t0 = performance.now();
  for (let i = 0; i < cycles; i++) await Promise.all([...shts.map((d) => d.measure()), ads.convert(0, 1)]);
  const wall = (performance.now() - t0) / cycles;
  const wireMs = (q.stats.wireMicros - before) / cycles / 1000;
  record('I2C bus time per poll, 4 SHT4x + 1 ADS1115 @100 kHz', wireMs, 'ms', POLL_MS * 0.1);
  record('I2C poll cycle wall time incl. conversions (emulated)', wall, 'ms', POLL_MS * 0.1);
}
