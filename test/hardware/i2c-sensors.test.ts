// I2C sensors end to end: the built CLI's app on the emulated bus, the real drivers, blocks/discover,
// system/status, faults set on the emulators.
import t from 'tap';
import type { Sht4xSim } from '../../drivers/sim/sht4x-sim.js';
import type { Mcp9600Sim } from '../../drivers/sim/mcp9600-sim.js';
import { q, simApp } from './sim-app.js';

t.test(
  'the demo sim has a room BME280 and a kettle MCP9600, found by blocks/discover, read through the real drivers',
  async (t) => {
    const s = await simApp();
    t.teardown(() => s.close());
    const found = (await s.post('blocks/discover')).body;
    const env = found.find((b: any) => b.type === 'EnvSensorI2c');
    const tc = found.find((b: any) => b.type === 'TempSensorThermocouple');
    t.same([env?.id, env?.data.bus, env?.data.address, env?.data.chip], ['BME280 0x76', 'sim', 0x76, 'BME280']);
    t.same([tc?.id, tc?.data.address], ['MCP9600 0x60', 0x60]);
    await s.run(1500);
    await s.run(500);
    const room = s.data('BME280 0x76');
    const plant = (await s.get('sim/plant')).body;
    t.ok(Math.abs(q(room.value)! - plant.ambient) < 0.05, `room ${q(room.value)} ~ ambient ${plant.ambient}`);
    t.ok(Math.abs(room.humidity - 55) < 0.1, `humidity ${room.humidity}`);
    t.ok(Math.abs(room.pressure - 1013) < 0.05, `pressure ${room.pressure}`);
    t.equal(room.connected, true);
    t.equal(q(s.data('MCP9600 0x60').value), 66);
    // A setpoint can use it (TempSensorInterface).
    const pair = await s.post('blocks/create', {
      id: 'kettle sp',
      type: 'SetpointSensorPair',
      data: { sensorId: { __objtype: 'Link', id: 'MCP9600 0x60' }, storedSetting: 70, enabled: true },
    });
    t.equal(pair.status, 201);
    const status = (await s.get('system/status')).body;
    const i2c = JSON.stringify(status);
    t.match(i2c, /"bus":"sim","address":"0x76","chip":"BME280"/, 'found device in status with bus and address');
    t.equal((await s.post('blocks/discover')).body.length, 0, 'nothing new the second time');
  },
);

const BENCH = {
  i2cSensors: [
    { name: 'ferm1', type: 'SHT4X', address: '0x44', temperature: 12, humidity: 70 },
    { name: 'ferm2', type: 'SHT4X', address: '0x45', temperature: 13 },
    { name: 'keg', type: 'ADS1115', address: '0x48', inputs: [0, 2.5, 0, 0] },
    { name: 'hlt', type: 'MCP9600', address: '0x67', temperature: 350 },
  ],
};

t.test(
  'CRC failure -> null and a counted error; open thermocouple; unplugged chip listed as missing; kernel-claimed address reported, not forced',
  async (t) => {
    const s = await simApp({ sim: BENCH });
    t.teardown(() => s.close());
    const sim = s.app.hardware.sim!;
    const model = (name: string) => sim.i2cSensors.find((e) => e.spec.name === name)!.model;
    sim.i2c!.faults.claimed.add(0x45);
    const found = (await s.post('blocks/discover')).body.map((b: any) => b.id).sort();
    t.same(found, ['ADS1115 0x48', 'MCP9600 0x67', 'SHT4X 0x44']);
    const claimed = (await s.get('system/status')).body;
    t.match(JSON.stringify(claimed), /"claimed":\[\{"bus":"sim","address":"0x45"\}\]/);
    await s.post('blocks/write', {
      id: 'ADS1115 0x48',
      type: 'AnalogSensorI2c',
      data: {
        bus: 'sim',
        address: 0x48,
        channel: 1,
        unit: 'BAR',
        voltsLow: 0.5,
        valueLow: 0,
        voltsHigh: 4.5,
        valueHigh: 10,
      },
    });
    await s.run(1500);
    t.ok(
      Math.abs(s.data('ADS1115 0x48').value - 5) < 0.01,
      `2.5 V on 0.5-4.5 V = 0-10 bar -> ${s.data('ADS1115 0x48').value}`,
    );
    t.equal(q(s.data('MCP9600 0x67').value), 350, 'several hundred degC accepted');
    const sht = s.data('SHT4X 0x44');
    t.ok(Math.abs(q(sht.value)! - 12) < 0.01);
    t.equal(Math.round(sht.humidity), 70);

    (model('ferm1') as Sht4xSim).faults.badCrc = 1;
    (model('hlt') as Mcp9600Sim).open = true;
    await s.run(1000);
    const bad = s.data('SHT4X 0x44');
    t.equal(q(bad.value), null, 'bad CRC -> null');
    t.equal(bad.humidity, null);
    t.equal(bad.errors, 1, 'counted');
    t.match(bad.lastError, /CRC/);
    t.equal(q(s.data('MCP9600 0x67').value), null, 'open thermocouple -> null');
    t.match(s.data('MCP9600 0x67').lastError, /open or shorted/);
    let st = (await s.get('system/status')).body;
    t.match(JSON.stringify(st), /"chip":"SHT4X","connected":false,"errors":1,"crcErrors":1/);

    (model('hlt') as Mcp9600Sim).open = false;
    model('ferm1').faults.nack = true;
    await s.run(1000);
    t.equal(q(s.data('SHT4X 0x44').value), null);
    t.equal(q(s.data('MCP9600 0x67').value), 350, 'thermocouple back');
    st = (await s.get('system/status')).body;
    t.match(
      JSON.stringify(st),
      /"missing":\[\{"bus":"sim","address":"0x44","kind":"SHT4X"/,
      'a configured chip that does not answer is listed as missing',
    );

    model('ferm1').faults.nack = false;
    sim.i2c!.faults.stuck = true;
    await s.run(1000);
    t.equal(q(s.data('MCP9600 0x67').value), null, 'stuck bus -> null');
    sim.i2c!.faults.stuck = false;
    await s.run(1000);
    t.ok(Math.abs(q(s.data('SHT4X 0x44').value)! - 12) < 0.01, 'every chip reads again after the bus recovers');
    t.equal(q(s.data('MCP9600 0x67').value), 350);
  },
);
