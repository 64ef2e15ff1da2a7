// The emulated chips of the tests of changes that act on the hardware (batch-hardware,
// single-commit-hardware): a DS2408 behind a DS2482 switching the heater, and an MCP23017
// active-low relay board switching the cooler, found by discovery under these block ids.
export const SIM = {
  plant: { ambient: 20, initial: { beer: 20, air: 20 } },
  ds2482: [
    {
      address: 24,
      variant: 'ds2482-800',
      channels: [[{ name: 'latches', type: 'DS2408', address: '29-0000000000d1', outputs: { '1': 'heater' } }]],
    },
  ],
  i2cIo: [{ name: 'board', type: 'MCP23017', address: '0x20', activeLow: true, outputs: { '1': 'cooler' } }],
};
export const DS2408 = 'DS2408 0000000000d1';
export const MCP = 'MCP23017 0x20';
