// Two blocks on one IO chip, as a backup (or an older store) holds them and a load keeps them, in
// the app on the emulated MCP23017 through the real driver: each drives its own channels.
import t from 'tap';
import type { SimMcp23017 } from '../../drivers/sim/mcp23017-sim.js';
import { MCP, relayRig } from './relay-chips.js';
import { link } from './setup.js';

t.test(
  'two blocks on one MCP23017 with an actuator on each: both relays are on, neither undoes the other',
  async (t) => {
    const r = await relayRig(t);
    const backup = r.s.app.runtime.backupSave();
    const nid = Math.max(...backup.blocks.map((b) => b.nid)) + 1;
    const serviceId = backup.blocks[0]!.serviceId;
    backup.blocks.push(
      {
        id: 'Relays',
        nid,
        type: 'MCP23017',
        serviceId,
        data: { bus: 'sim', address: 0x20, activeLow: true },
        meta: {},
      },
      {
        id: 'Fan',
        nid: nid + 1,
        type: 'DigitalActuator',
        serviceId,
        data: { hwDevice: link('Relays'), channel: 2, storedState: 'STATE_ACTIVE' },
        meta: {},
      } as never,
    );
    const result = await r.s.app.runtime.backupLoad(backup);
    t.same(result.failures, []);
    await r.run(3000);
    const mcp = r.s.app.hardware.sim!.i2cIo.find((e) => e.spec.name === 'board')!.chip as SimMcp23017;
    t.equal(
      mcp.iodir & 3,
      0,
      'channels 1 (the cooler, on the discovered block) and 2 (the fan, on the other) are outputs',
    );
    t.equal(mcp.pins() & 3, 0, 'both relays are on (active low)');
    t.equal(r.offSeen.cooler, 0, 'the cooler relay never went off');
    t.equal(r.s.data(MCP).address, 0x20);
  },
);
