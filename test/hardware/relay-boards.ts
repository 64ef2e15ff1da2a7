// The relay boards of the power-loss tests (relay-power-dip, relay-power-loss): a DS2408 on a
// DS2482 and the I2C expanders, each named `relays` in its sim config, with a compressor on
// channel 1 and a pump on channel 2 once set up; a sim config of devices on one DS2482
// (oneWireSim), and the one-module sim config of the restart tests (leftOnSim). Not a test file
// itself.
import { simApp } from './sim-app.js';

export type SimAppOf = Awaited<ReturnType<typeof simApp>>;

export const seconds = (value: number) => ({ __objtype: 'Quantity', unit: 's', value });

/** A sim config with `devices` on the one channel of a DS2482-100, beside a plant at 20 °C. */
export const oneWireSim = (devices: Array<Record<string, unknown>>) => ({
  plant: { ambient: 20, initial: { beer: 20, air: 20 } },
  ds2482: [{ address: 24, variant: 'ds2482-100', channels: [devices] }],
});

/**
 * The sim config of the restart tests: one DS2408 on a DS2482 as a previous run left it, the
 * outputs `leftOn` on (it kept its latches). `module` names it and adds to it (valves).
 */
export const leftOnSim = (
  leftOn: number[],
  module: Record<string, unknown> = { name: 'relays', address: '29-0000000000d1' },
) => oneWireSim([{ type: 'DS2408', ...module, leftOn }]);

/** The emulated board as a test drives it. */
export interface Chip {
  powerOnReset(): void;
  /** Off the bus (the board's supply gone for a while), and back in its power-on state. */
  off(): void;
  on(): void;
}

export interface Board {
  /** The sim config with the board, named `relays`. */
  sim: Record<string, unknown>;
  /** The board's block: made by discovery (no type), or by the test (type and data). */
  block: { id: string; type?: string; data?: Record<string, unknown> };
  /** Whether the load on a channel is on, from the emulated board (emulated()). */
  loadOn(board: any, channel: number): boolean;
  find(app: SimAppOf): Chip;
}

/** The emulated I2C chip named `relays`, as a Chip. */
export const i2cChip = (app: SimAppOf): Chip => {
  const chip = app.app.hardware.sim!.i2cIo.find((e) => e.spec.name === 'relays')!.chip as any;
  return {
    powerOnReset: () => chip.powerOnReset(),
    off: () => {
      chip.plugged = false;
    },
    on: () => {
      chip.powerOnReset();
      chip.plugged = true;
    },
  };
};

export const BOARDS: Record<string, Board> = {
  'DS2408 (1-Wire)': {
    sim: {
      ds2482: [
        {
          address: 24,
          variant: 'ds2482-100',
          channels: [[{ name: 'relays', type: 'DS2408', address: '29-0000000000d1' }]],
        },
      ],
    },
    block: { id: 'DS2408 0000000000d1' },
    loadOn: (board, channel) => (board.activeOutputs() & (1 << (channel - 1))) !== 0,
    find: (app) => {
      const m = app.app.hardware.sim!.devices().find((d) => d.spec.name === 'relays')!.model as any;
      return { powerOnReset: () => m.powerOnReset(), off: () => m.unplug(), on: () => m.plug() };
    },
  },
  'MCP23017 (I2C), active low': {
    sim: { i2cIo: [{ name: 'relays', type: 'MCP23017', address: '0x20', activeLow: true }] },
    block: { id: 'Relays', type: 'MCP23017', data: { bus: 'sim', address: 0x20, activeLow: true } },
    loadOn: (board, channel) => board.loadOn(channel, true),
    find: i2cChip,
  },
  'PCF8574 (I2C), active low': {
    sim: { i2cIo: [{ name: 'relays', type: 'PCF8574', address: '0x20', activeLow: true }] },
    block: { id: 'Relays', type: 'PCF8574', data: { bus: 'sim', address: 0x20, activeLow: true } },
    loadOn: (board, channel) => board.loadOn(channel, true),
    find: i2cChip,
  },
};

/** The emulated board itself (for Board.loadOn): the sim's model of the DS2408, or the I2C chip. */
export function emulated(app: SimAppOf, b: Board): unknown {
  const sim = app.app.hardware.sim!;
  return b === BOARDS['DS2408 (1-Wire)']
    ? sim.devices().find((d) => d.spec.name === 'relays')!.model
    : sim.i2cIo.find((e) => e.spec.name === 'relays')!.chip;
}

/** A sim app with the board found or made: `create` adds a DigitalActuator on one of its channels. */
export async function boardApp(b: Board) {
  const app = await simApp({ sim: { plant: { ambient: 20, initial: { beer: 20, air: 20 } }, ...b.sim } });
  // A board made by hand (an I2C expander) first: discovery then proposes no second block for its chip.
  const made = b.block.type ? (await app.post('blocks/create', b.block)).status : null;
  await app.post('blocks/discover');
  await app.run(2000);
  const create = (id: string, channel: number, constraints: Record<string, unknown>, storedState = 'STATE_ACTIVE') =>
    app.post('blocks/create', {
      id,
      type: 'DigitalActuator',
      data: { 'hwDevice<>': b.block.id, channel, storedState, constraints },
    });
  return { app, made, create };
}
