// Discovered I2C chips get short ids like 1-Wire devices (issue 47.4): the chip and its address
// in the datasheet's notation, the bus only when the same chip sits at the same address on
// two buses.
import t from 'tap';
import { i2cBlockId } from '../../src/hardware/i2c-discovery.js';

t.test('chip and address; the bus only to tell two apart', async (t) => {
  const taken = new Set<string>(['Beer Sensor']);
  t.equal(i2cBlockId('BME280', '1', 0x76, taken), 'BME280 0x76');
  t.equal(i2cBlockId('MCP23017', '1', 0x20, taken), 'MCP23017 0x20');
  t.equal(i2cBlockId('BME280', '3', 0x76, taken), 'BME280 0x76 on bus 3', 'the same chip on another bus');
  taken.add('SHT4X 0x44 on bus 1');
  taken.add('SHT4X 0x44');
  t.equal(i2cBlockId('SHT4X', '1', 0x44, taken), 'SHT4X 0x44 on bus 1 (2)', 'never an id that is taken');
  t.ok(taken.has('BME280 0x76 on bus 3'), 'each id is taken once given');
});
