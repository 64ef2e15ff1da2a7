import t from 'tap';
import { Ads1x15 } from '../../drivers/i2c/ads1115.js';
import { Bme280, compensatePressure, compensateTemperature } from '../../drivers/i2c/bme280.js';
import { I2cQueueFullError, I2C_QUEUE_LIMIT, QueuedI2cBus } from '../../drivers/i2c/queue.js';
import { Mcp9600 } from '../../drivers/i2c/mcp9600.js';
import { delay, errorCode, I2cSensorError, sensirionCrc8 } from '../../drivers/i2c/sensor-common.js';
import { Sht3x } from '../../drivers/i2c/sht3x.js';
import { readSht4xSerial, Sht4x } from '../../drivers/i2c/sht4x.js';
import { Ads1115Sim } from '../../drivers/sim/ads1115-sim.js';
import { Bme280Sim, EXAMPLE_CALIBRATION } from '../../drivers/sim/bme280-sim.js';
import { SimI2cBus } from '../../drivers/sim/ds2482-sim.js';
import { Mcp9600Sim } from '../../drivers/sim/mcp9600-sim.js';
import { Sht3xSim } from '../../drivers/sim/sht3x-sim.js';
import { Sht4xSim } from '../../drivers/sim/sht4x-sim.js';

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return errorCode(e);
  }
  return 'resolved';
}

t.test('Sensirion CRC-8 matches the datasheet example (0xBEEF -> 0x92)', async (t) => {
  t.equal(sensirionCrc8(0xbe, 0xef), 0x92);
});

t.test('BME280 compensation gives the datasheet worked numbers', async (t) => {
  const c = { ...EXAMPLE_CALIBRATION };
  const temp = compensateTemperature(519888, c);
  t.ok(Math.abs(temp.tFine - 128422) < 1, `t_fine ${temp.tFine} ~ 128422`);
  t.ok(Math.abs(temp.celsius - 25.08) < 0.005, `T ${temp.celsius} ~ 25.08 degC`);
  const p = compensatePressure(415148, temp.tFine, c);
  t.ok(Math.abs(p - 100653.27) < 0.5, `p ${p} ~ 100653.27 Pa`);
});

t.test('BME280 driver reads the emulator through calibration registers and forced mode', async (t) => {
  const bus = new SimI2cBus();
  const sim = new Bme280Sim(0x76);
  bus.attach(0x76, sim);
  sim.temperature = 18.3;
  sim.humidity = 61.5;
  sim.pressure = 1002.4;
  const d = new Bme280(bus, 0x76);
  await d.init();
  t.equal(d.humidity, true);
  const m = await d.measure();
  t.ok(Math.abs(m.temperature! - 18.3) < 0.01, `T ${m.temperature}`);
  t.ok(Math.abs(m.humidity! - 61.5) < 0.05, `RH ${m.humidity}`);
  t.ok(Math.abs(m.pressure! - 1002.4) < 0.02, `p ${m.pressure} hPa`);

  sim.powerOnReset();
  // A reset between trigger and read leaves the data registers at 0x80000: refused, not compensated.
  const measuring = d.measure();
  await new Promise((r) => setTimeout(r, 2));
  sim.powerOnReset();
  t.equal(await code(measuring), 'POWER_ON');
  t.ok(Math.abs((await d.measure()).temperature! - 18.3) < 0.01, 'the next measurement is good again');
});

t.test('BMP280: no humidity; a BME280 configured as BMP280 is refused', async (t) => {
  const bus = new SimI2cBus();
  bus.attach(0x77, new Bme280Sim(0x77, 'BMP280'));
  bus.attach(0x76, new Bme280Sim(0x76, 'BME280'));
  const bmp = new Bme280(bus, 0x77, 'BMP280');
  await bmp.init();
  const m = await bmp.measure();
  t.equal(m.humidity, undefined);
  t.ok(Math.abs(m.temperature! - 20) < 0.01);
  t.equal(await code(new Bme280(bus, 0x76, 'BMP280').init()), 'IDENTITY');
});

t.test('SHT4x: serial identity, measurement, CRC failure, NACK while measuring', async (t) => {
  const bus = new SimI2cBus();
  const sim = new Sht4xSim(0x44);
  bus.attach(0x44, sim);
  sim.temperature = 4.5;
  sim.humidity = 80;
  t.equal(await readSht4xSerial(bus, 0x44), 0x0a1b2c3d);
  const d = new Sht4x(bus, 0x44);
  await d.init();
  const m = await d.measure();
  t.ok(Math.abs(m.temperature! - 4.5) < 0.01 && Math.abs(m.humidity! - 80) < 0.01, JSON.stringify(m));
  sim.faults.badCrc = 1;
  t.equal(await code(d.measure()), 'CRC');
  t.ok((await d.measure()).temperature! < 5, 'the next read is good');
  // Reading before the 8.3 ms are up NACKs, as the chip does.
  await bus.i2cWrite(0x44, Uint8Array.of(0xfd));
  t.equal(await code(bus.i2cRead(0x44, 6)), 'NACK');
  sim.faults.nack = true;
  t.equal(await code(d.measure()), 'NACK');
});

t.test('SHT3x: heater off at setup, a power-on reset is seen and set up again', async (t) => {
  const bus = new SimI2cBus();
  const sim = new Sht3xSim(0x45);
  bus.attach(0x45, sim);
  sim.status |= 1 << 13; // heater left on by someone
  const d = new Sht3x(bus, 0x45);
  await d.init();
  t.equal(sim.heater, false, 'heater off');
  sim.temperature = 31;
  sim.humidity = 40;
  let m = await d.measure();
  t.ok(Math.abs(m.temperature! - 31) < 0.01 && Math.abs(m.humidity! - 40) < 0.01, JSON.stringify(m));
  sim.powerOnReset();
  m = await d.measure();
  t.equal(d.resets, 1, 'reset counted');
  t.ok(Math.abs(m.temperature! - 31) < 0.01);
  sim.faults.badCrc = 1;
  t.equal(await code(d.measure()), 'CRC');
  // An SHT4x serial-number probe at an SHT3x is not mistaken for one.
  t.equal(await code(new Sht4x(bus, 0x45).init()), 'NACK', 'an SHT3x NACKs the 1-byte serial command');
});

t.test('ADS1115 / ADS1015: single-shot per channel and gain, identity, power-on reset', async (t) => {
  const bus = new SimI2cBus();
  const a = new Ads1115Sim(0x48);
  const b = new Ads1115Sim(0x49, 'ADS1015');
  bus.attach(0x48, a);
  bus.attach(0x49, b);
  a.inputs.splice(0, 4, 0.5, 1.234, 3.3, 5.5);
  b.inputs[2] = 2.5;
  const d = new Ads1x15(bus, 0x48);
  await d.init();
  t.ok(Math.abs((await d.convert(1, 2)) - 1.234) < 0.0002, 'AIN1 at ±2.048 V');
  t.ok(Math.abs((await d.convert(2, 1)) - 3.3) < 0.0003, 'AIN2 at ±4.096 V');
  t.ok(Math.abs((await d.convert(3, 1)) - 4.096) < 0.0003, 'AIN3 clips at full scale');
  t.ok(Math.abs((await d.convert(3, 0)) - 5.5) < 0.0003, 'AIN3 at ±6.144 V');
  const d15 = new Ads1x15(bus, 0x49, 'ADS1015');
  await d15.init();
  t.ok(Math.abs((await d15.convert(2, 1)) - 2.5) < 0.003, 'ADS1015 12-bit');
  const conv = d.convert(0, 2);
  await new Promise((r) => setTimeout(r, 2));
  a.powerOnReset();
  t.equal(await code(conv), 'POWER_ON');
  // A chip that is not an ADS1x15 (config register of a TMP102 at 0x48) is refused.
  const bus2 = new SimI2cBus();
  bus2.attach(0x48, Object.assign(new Ads1115Sim(0x48), { config: 0x60a0 }));
  t.equal(await code(new Ads1x15(bus2, 0x48).init()), 'IDENTITY');
});

t.test('MCP9600: type K/J, hundreds of degC, open thermocouple, reset re-writes the type', async (t) => {
  const bus = new SimI2cBus();
  const sim = new Mcp9600Sim(0x67);
  bus.attach(0x67, sim);
  const d = new Mcp9600(bus, 0x67, 'J');
  await d.init();
  t.equal(sim.sensorConfig, 0x10, 'type J written');
  sim.temperature = 412.5;
  sim.coldJunction = -3.25;
  let m = await d.measure();
  t.equal(m.temperature, 412.5);
  t.equal(m.coldJunction, -3.25);
  sim.temperature = -20.0625;
  t.equal((await d.measure()).temperature, -20.0625);
  sim.open = true;
  t.equal(await code(d.measure()), 'FAULT');
  sim.open = false;
  sim.powerOnReset();
  t.equal(await code(d.measure()), 'POWER_ON', 'the reading after a reset is refused');
  t.equal(sim.sensorConfig, 0x10, 'type J written again');
  m = await d.measure();
  t.equal(m.temperature, -20.0625);
  t.equal(d.resets, 1);
});

t.test('stuck bus, kernel-claimed address and the per-bus queue', async (t) => {
  const sim = new SimI2cBus();
  sim.attach(0x44, new Sht4xSim(0x44));
  sim.attach(0x48, new Ads1115Sim(0x48));
  const q = new QueuedI2cBus(sim);
  const d = new Sht4x(q, 0x44);
  await d.init();
  sim.faults.stuck = true;
  t.equal(await code(d.measure()), 'BUS');
  sim.faults.stuck = false;
  sim.faults.claimed.add(0x48);
  t.equal(await code(new Ads1x15(q, 0x48).init()), 'CLAIMED');
  // Two drivers at once: their transfers never interleave, and each one is counted with its wire time.
  sim.faults.claimed.clear();
  const before = q.stats.transactions;
  const [m] = await Promise.all([d.measure(), new Ads1x15(q, 0x48).convert(0, 1)]);
  t.ok(m.temperature !== undefined);
  t.ok(q.stats.transactions - before >= 6);
  t.ok(q.stats.wireBits > 0 && q.wireMs > 0);
  t.ok(q.stats.failures >= 2, 'failed transfers counted');
  // The queue is bounded.
  const flood = Array.from({ length: I2C_QUEUE_LIMIT + 5 }, () => q.i2cRead(0x48, 2).catch((e) => e));
  const results = await Promise.all(flood);
  t.ok(results.filter((r) => r instanceof I2cQueueFullError).length >= 5);
  t.ok(q.stats.dropped >= 5);
  t.type(new I2cSensorError('CRC', 'x'), Error);
});

t.test('a conversion delay lasts its full time, however the millisecond falls', async (t) => {
  // libuv counts timer time in whole milliseconds: a setTimeout(9) set late in a millisecond can
  // end after 8.1 ms (about one in eight here), and an SHT4x read then NACKs (the test above
  // flaked so). Started late in a millisecond, 40 times: none may end early.
  let shortest = Infinity;
  for (let i = 0; i < 40; i++) {
    while (Number(process.hrtime.bigint() % 1_000_000n) < 900_000);
    const t0 = performance.now();
    await delay(9);
    shortest = Math.min(shortest, performance.now() - t0);
  }
  t.ok(shortest >= 9, `the shortest of 40 waits for 9 ms took ${shortest.toFixed(2)} ms`);
});
