// TMP117: the driver against the emulator (result in 7.8125 m°C counts, two's complement, the
// 0x8000 power-on value refused, a chip left in shutdown by its EEPROM set converting again with
// its averaging kept), told from an ADS1115 at the addresses they share by reads only, and end to
// end on the emulated bus: discovered as an EnvSensorI2c, following the plant, with only a
// temperature entity for Home Assistant.
import t from 'tap';
import { I2C_SENSOR_CHIPS } from '../../drivers/i2c/chips.js';
import { probeChips } from '../../drivers/i2c/probe.js';
import { errorCode } from '../../drivers/i2c/sensor-common.js';
import {
  TMP117_CONFIG_DEFAULT,
  TMP117_REG,
  TMP117_RESOLUTION,
  Tmp117,
  tmp117Celsius,
} from '../../drivers/i2c/tmp117.js';
import type { I2cBus } from '../../drivers/i2c/types.js';
import { Ads1115Sim } from '../../drivers/sim/ads1115-sim.js';
import { SimI2cBus } from '../../drivers/sim/ds2482-sim.js';
import { Tmp117Sim } from '../../drivers/sim/tmp117-sim.js';
import { blockTypes } from '../../src/blocks/index.js';
import { q, simApp } from '../hardware/sim-app.js';

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return errorCode(e);
  }
  return 'resolved';
}

/** A TMP117 on its own bus, on a clock the test moves. */
function rig(address = 0x48) {
  let now = 0;
  const bus = new SimI2cBus('t');
  const sim = new Tmp117Sim(address, () => now);
  bus.attach(address, sim);
  return { bus, sim, advance: (ms: number) => void (now += ms) };
}

/** The register as the chip holds it, read over the bus. */
async function register(bus: I2cBus, address: number, reg: number): Promise<number> {
  await bus.i2cWrite(address, Uint8Array.of(reg));
  const [hi, lo] = await bus.i2cRead(address, 2);
  return (hi! << 8) | lo!;
}

t.test("the result register: 7.8125 m°C per count, two's complement (datasheet table 7-1)", async (t) => {
  t.equal(tmp117Celsius(0x7f, 0xff), 255.9921875, '0x7FFF');
  t.equal(tmp117Celsius(0x0c, 0x80), 25, '0x0C80 = 25 °C');
  t.equal(tmp117Celsius(0x00, 0x01), 0.0078125, 'one count');
  t.equal(tmp117Celsius(0xff, 0xff), -0.0078125, '0xFFFF');
  t.equal(tmp117Celsius(0xf3, 0x80), -25, '0xF380 = -25 °C');
});

t.test('the driver reads the emulator; the power-on value is refused until the first conversion', async (t) => {
  const { bus, sim, advance } = rig();
  sim.temperature = 19.37;
  const d = new Tmp117(bus, 0x48);
  await d.init();
  t.equal(await code(d.measure()), 'POWER_ON', 'right after power-on the result is 0x8000: refused');
  t.equal(d.powerOnReads, 1);
  advance(130);
  const m = await d.measure();
  t.equal(m.temperature, Math.round(19.37 / TMP117_RESOLUTION) * TMP117_RESOLUTION, `${m.temperature} °C`);
  t.same(Object.keys(m), ['temperature'], 'a temperature, nothing else');

  sim.temperature = -10.5;
  advance(130);
  t.equal((await d.measure()).temperature, -10.5, 'below zero');

  sim.powerOnReset();
  t.equal(await code(d.measure()), 'POWER_ON', 'a power-on reset is seen, not read as -256 °C');
  advance(130);
  t.equal((await d.measure()).temperature, -10.5, 'and the next conversion is good again');
  t.equal(await register(bus, 0x48, TMP117_REG.CONFIGURATION), TMP117_CONFIG_DEFAULT, 'nothing was written');
});

t.test('a chip its EEPROM leaves in shutdown converts again, keeping its averaging', async (t) => {
  const { bus, sim, advance } = rig(0x4a);
  sim.temperature = 4;
  // Shutdown (MOD 01), 64 averages (AVG 11), cycle 100 (CONV 100): as a user may have programmed it.
  const programmed = 0x0400 | 0x0200 | 0x0060;
  await bus.i2cWrite(0x4a, Uint8Array.of(TMP117_REG.CONFIGURATION, programmed >> 8, programmed & 0xff));
  const d = new Tmp117(bus, 0x4a);
  await d.init();
  const config = await register(bus, 0x4a, TMP117_REG.CONFIGURATION);
  t.equal(config & 0x0c00, 0, 'continuous conversion');
  t.equal(config & 0x03e0, 0x0260, 'its cycle and averaging bits kept');
  advance(130);
  t.equal((await d.measure()).temperature, 4);
});

t.test('not a TMP117: an ADS1115 at 0x48 is refused by init, and the probe tells the two apart', async (t) => {
  const bus = new SimI2cBus('t');
  const ads = new Ads1115Sim(0x48, 'ADS1115');
  const tmp = new Tmp117Sim(0x49);
  bus.attach(0x48, ads);
  bus.attach(0x49, tmp);
  t.equal(await code(new Tmp117(bus, 0x48).init()), 'IDENTITY', "an ADS1115's registers are not a TMP117's");

  const writes: Array<{ address: number; bytes: number[] }> = [];
  const recording: I2cBus = Object.assign(Object.create(bus) as I2cBus, {
    i2cWrite: (a: number, b: Uint8Array) => (writes.push({ address: a, bytes: [...b] }), bus.i2cWrite(a, b)),
    writeByte: (a: number, c: number, v: number) => (
      writes.push({ address: a, bytes: [c, v] }), bus.writeByte(a, c, v)
    ),
    sendByte: (a: number, v: number) => (writes.push({ address: a, bytes: [v] }), bus.sendByte(a, v)),
  });
  const found = await probeChips(recording, { chips: I2C_SENSOR_CHIPS });
  t.same(
    found.map((f) => `${f.address.toString(16)}:${f.chip?.name}`),
    ['48:ADS1115', '49:TMP117'],
    'each is found as what it is',
  );
  t.same(
    writes.filter((w) => w.address === 0x48 || w.address === 0x49).filter((w) => w.bytes.length > 1),
    [],
    'only register pointers were written to them, no register',
  );
  t.equal(ads.config & 0x7fff, 0x0583, "the ADS1115's config is untouched");
});

t.test('end to end: discovered as an EnvSensorI2c that follows the plant; temperature only', async (t) => {
  const s = await simApp({
    sim: { i2cSensors: [{ name: 'reference', type: 'TMP117', address: '0x49', sense: 'beer' }] },
  });
  t.teardown(() => s.close());
  const found = (await s.post('blocks/discover')).body;
  const ref = found.find((b: any) => b.data.chip === 'TMP117');
  t.same([ref?.type, ref?.id, ref?.data.address], ['EnvSensorI2c', 'TMP117 0x49', 0x49]);
  await s.run(2500);
  const d = s.data('TMP117 0x49');
  const beer = (await s.get('sim/plant')).body.beer;
  t.equal(d.connected, true);
  t.ok(Math.abs(q(d.value)! - beer) <= TMP117_RESOLUTION, `value ${q(d.value)} ~ beer ${beer}`);
  t.equal(d.humidity, null, 'no humidity');
  t.equal(d.pressure, null, 'no pressure');
  t.equal(d.lastError, '', 'its last poll succeeded');
  const status = JSON.stringify((await s.get('system/status')).body);
  t.match(status, /"address":"0x49","chip":"TMP117"/, 'listed in the i2c status');

  const env = blockTypes.find((b) => b.type === 'EnvSensorI2c')!;
  const entities = (chip: string) => env.homeAssistant!.filter((e) => !e.when || e.when({ chip })).map((e) => e.kind);
  t.same(entities('TMP117'), ['temperature'], 'Home Assistant: a temperature sensor only');
  t.same(entities('BME280'), ['temperature', 'humidity', 'pressure'], 'a BME280 keeps all three');
  t.same(entities('BMP280'), ['temperature', 'pressure']);

  const bad = await s.post('blocks/create', {
    id: 'typo',
    type: 'EnvSensorI2c',
    data: { chip: 'TMP117', bus: 'sim', address: 0x76 },
  });
  t.equal(bad.status, 422, 'an address the chip cannot have is refused');
  t.match(JSON.stringify(bad.body), /0x76 \(118\) is not an address of a TMP117 \(0x48-0x4B\)/);
});
