// An IO chip block whose chip type is not the chip at its address: an MCP23017 block on a
// PCF8574 relay board (both can be at 0x20-0x27). A PCF8574 takes every byte written to it as
// its port, the command byte of a register read included, so the MCP23017 driver's polls would
// switch its relays. The block is refused (connected false, the error names the chip found)
// before anything is written, and a stop does not touch the chip with the wrong driver either.
import t from 'tap';
import { SimMcp23017 } from '../../drivers/sim/mcp23017-sim.js';
import type { SimPcf8574 } from '../../drivers/sim/pcf8574-sim.js';
import { simApp } from './sim-app.js';

const SIM = {
  plant: { ambient: 18, initial: { beer: 18, air: 18 } },
  i2cIo: [{ name: 'relays', type: 'PCF8574', address: '0x20', activeLow: true }],
};

t.test('an MCP23017 block at the address of a PCF8574 board never writes to it', async (t) => {
  const s = await simApp({ sim: SIM });
  t.teardown(() => s.close());
  const chip = s.app.hardware.sim!.i2cIo.find((e) => e.spec.name === 'relays')!.chip as SimPcf8574;
  // Every port value other than all-off (0xFF) the chip was given.
  const ports = new Set<number>();
  const add = (port: number) => void (port !== 0xff && ports.add(port));
  const sendByte = chip.sendByte.bind(chip);
  const writeByte = chip.writeByte.bind(chip);
  const readByte = (chip as any).readByte?.bind(chip);
  chip.sendByte = (b) => (sendByte(b), add(chip.port));
  chip.writeByte = (c, b) => (add(c & 0xff), writeByte(c, b), add(chip.port));
  if (readByte) (chip as any).readByte = (c: number) => (add(c & 0xff), readByte(c));
  t.equal(chip.port, 0xff, 'every relay off at power-up');
  const made = await s.post('blocks/create', {
    id: 'Board',
    type: 'MCP23017',
    data: { bus: 'sim', address: 0x20, activeLow: true },
  });
  t.equal(made.status, 201);
  await s.post('blocks/create', {
    id: 'Compressor',
    type: 'DigitalActuator',
    data: { hwDevice: { __objtype: 'Link', id: 'Board' }, channel: 1, storedState: 'STATE_INACTIVE' },
  });
  await s.run(3000);
  t.same([...ports], [], 'nothing was written to the PCF8574');
  t.equal(chip.port, 0xff, 'every relay still off');
  const board = s.data('Board');
  t.equal(board.connected, false, 'the block does not answer');
  const st = (await s.get('system/status')).body.hardware.i2c;
  t.match(st.missing, [{ bus: 'sim', address: '0x20', kind: 'MCP23017', lastError: /PCF8574/ }], 'named in status');
  await s.close();
  t.same([...ports], [], 'a stop wrote nothing with the wrong driver');
  t.equal(chip.port, 0xff, 'every relay off after the stop');
});

t.test('the board swapped for the chip the block names is taken without a restart', async (t) => {
  const s = await simApp({ sim: SIM });
  t.teardown(() => s.close());
  await s.post('blocks/create', {
    id: 'Board',
    type: 'MCP23017',
    data: { bus: 'sim', address: 0x20, activeLow: true },
  });
  await s.run(2000);
  t.equal(s.data('Board').connected, false, 'refused while a PCF8574 answers');
  // The brewer fits the MCP23017 board the block was made for.
  s.app.hardware.sim!.i2c!.attach(0x20, new SimMcp23017(0x20));
  await s.run(15_000);
  t.equal(s.data('Board').connected, true, 'the block answers once its chip is there');
});
