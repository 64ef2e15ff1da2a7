// The built-in demo hardware for `--hardware sim` without `--sim-config`: a fermenter in a
// fridge on a DS2482-800. Channel 0 has the beer and chamber air sensors, channel 1 the room
// sensor and a MAX31850 thermocouple converter on a HERMS coil, channel 2 a DS2408 whose relays 1 and 2 switch the heater and the cooler, and a
// DS2413. Two GPIO lines: a fan relay (active low) and a door switch input. An active-low
// 16-relay board on an MCP23017 at 0x20, on the same I2C bus, wired to nothing in the plant.
// scripts/demo-sim.json holds the same configuration as a file to copy and edit.
export const DEMO_SIM_CONFIG = {
  plant: {
    ambient: 22,
    initial: { beer: 19, air: 20 },
    fermentationW: 4,
  },
  ds2482: [
    {
      address: 24,
      variant: 'ds2482-800',
      channels: [
        [
          { name: 'beer', type: 'DS18B20', address: '28-00000000b001', sense: 'beer' },
          { name: 'air', type: 'DS18B20', address: '28-00000000a001', sense: 'air' },
        ],
        [
          { name: 'room', type: 'DS18B20', address: '28-00000000c001', sense: 'ambient' },
          { name: 'herms', type: 'MAX31850', address: '3b-00000000f001', temperature: 68 },
        ],
        [
          { name: 'relays', type: 'DS2408', address: '29-00000000d001', outputs: { '1': 'heater', '2': 'cooler' } },
          { name: 'spare-io', type: 'DS2413', address: '3a-00000000e001' },
        ],
      ],
    },
  ],
  gpio: [
    { name: 'fan', line: 17, direction: 'out', activeLow: true },
    { name: 'door', line: 27, direction: 'in', level: 1 },
  ],
  // On the same emulated I2C bus: a room BME280 and a kettle thermocouple on an MCP9600.
  i2cSensors: [
    { name: 'room-env', type: 'BME280', address: '0x76', sense: 'ambient', humidity: 55, pressure: 1013 },
    { name: 'kettle', type: 'MCP9600', address: '0x60', temperature: 66 },
  ],
  // And an active-low MCP23017 relay board.
  i2cIo: [{ name: 'relay-board', type: 'MCP23017', address: 32, activeLow: true }],
};
