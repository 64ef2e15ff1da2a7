// The emulated chips of the tests of changes that act on the hardware (batch-hardware,
// single-commit-hardware, chip-release): a DS2408 behind a DS2482 switching the heater, and an MCP23017
// active-low relay board switching the cooler, found by discovery under these block ids; and the
// rig the tests of chips and actuators start from (relayRig).
import type { Test } from 'tap';
import type { SimMcp23017 } from '../../drivers/sim/mcp23017-sim.js';
import { simApp, type SimApp } from '../hardware/sim-app.js';
import { link } from './setup.js';

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

/**
 * The app on SIM (or `sim`) with the discovered DS2408 and MCP23017 (active low), and an actuator
 * on channel 1 of each, both on. `settle` runs once they are made (by default 4 s), and then both
 * outputs must be on. `run` runs the app, looking at both outputs every 10 ms (the hubs poll
 * every 100 ms) and counting in `offSeen` each look that found one off.
 */
export async function relayRig(t: Test, opts: { sim?: unknown; settle?: (s: SimApp) => Promise<void> } = {}) {
  const s = await simApp({ sim: opts.sim ?? SIM });
  t.teardown(() => s.close());
  await s.post('blocks/discover');
  const board = await s.post('blocks/patch', { id: MCP, type: 'MCP23017', data: { activeLow: true } });
  t.equal(board.status, 200, 'discovered');
  const create = async (body: unknown) => t.equal((await s.post('blocks/create', body)).status, 201);
  await create({
    id: 'Heater',
    type: 'DigitalActuator',
    data: { 'hwDevice<>': DS2408, channel: 1, storedState: 'STATE_ACTIVE' },
  });
  await create({
    id: 'Cooler',
    type: 'DigitalActuator',
    data: { hwDevice: link(MCP), channel: 1, storedState: 'STATE_ACTIVE' },
  });
  await (opts.settle ? opts.settle(s) : s.run(4000));
  const hw = s.app.hardware.sim!;
  const latch = () =>
    (
      hw.devices().find((d) => d.spec.name === 'latches')!.model as unknown as { activeOutputs(): number }
    ).activeOutputs() & 1;
  const mcp = hw.i2cIo.find((e) => e.spec.name === 'board')!.chip as SimMcp23017;
  // Active low: the relay is on while pin 1 is an output driven low.
  const relay = () => (mcp.iodir & 1) === 0 && (mcp.pins() & 1) === 0;
  t.ok(latch(), 'the heater latch is on');
  t.ok(relay(), 'the cooler relay is on');
  const offSeen = { heater: 0, cooler: 0 };
  return {
    s,
    latch,
    relay,
    offSeen,
    run: async (ms: number) => {
      for (let at = 0; at < ms; at += 10) {
        await s.run(10, 10);
        if (!latch()) offSeen.heater++;
        if (!relay()) offSeen.cooler++;
      }
    },
  };
}
