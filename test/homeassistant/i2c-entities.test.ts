import t from 'tap';
import { DEFAULT_UNITS } from '../../src/codec/units.js';
import { blockTypes } from '../../src/blocks/index.js';
import { announce, stateOf } from '../../src/homeassistant/entities.js';

/** The entities a type declares in its defineBlock. */
const entitiesOf = (type: string) => blockTypes.find((d) => d.type === type)?.homeAssistant ?? [];

t.test(
  'EnvSensorI2c becomes temperature, humidity (%) and pressure (hPa) sensors; thermocouples a temperature',
  async (t) => {
    const specs = entitiesOf('EnvSensorI2c');
    t.same(
      specs.map((s) => s.kind),
      ['temperature', 'humidity', 'pressure'],
    );
    t.equal(announce(specs[1]!, DEFAULT_UNITS).haUnit, '%');
    t.equal(announce(specs[2]!, DEFAULT_UNITS).haUnit, 'hPa');
    const block = {
      id: 'room',
      nid: 100,
      type: 'EnvSensorI2c',
      groups: [],
      data: { value: { value: 21 }, humidity: 55.5, pressure: null },
    } as any;
    t.equal(stateOf(specs[1]!, block), 55.5);
    t.equal(stateOf(specs[2]!, block), null);
    t.same(
      entitiesOf('TempSensorThermocouple').map((s) => s.kind),
      ['temperature'],
    );
  },
);
