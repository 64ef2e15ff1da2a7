import t from 'tap';
import { DEFAULT_UNITS } from '../../src/codec/units.js';
import { announce, ENTITIES, stateOf } from '../../src/homeassistant/entities.js';

t.test('EnvSensorI2c becomes temperature, humidity (%) and pressure (hPa) sensors; thermocouples a temperature', async (t) => {
  const specs = ENTITIES.EnvSensorI2c!;
  t.same(specs.map((s) => s.kind), ['temperature', 'humidity', 'pressure']);
  t.equal(announce(specs[1]!, DEFAULT_UNITS).haUnit, '%');
  t.equal(announce(specs[2]!, DEFAULT_UNITS).haUnit, 'hPa');
  const block = { id: 'room', nid: 100, type: 'EnvSensorI2c', groups: [], data: { value: { value: 21 }, humidity: 55.5, pressure: null } } as any;
  t.equal(stateOf(specs[1]!, block), 55.5);
  t.equal(stateOf(specs[2]!, block), null);
  t.same(ENTITIES.TempSensorThermocouple!.map((s) => s.kind), ['temperature']);
});
