// A single write or delete, and a delete of every block, that cannot be stored (a full or failing
// SD card) changes nothing, on the hardware either: a delete hook (an actuator switching its
// output off) or a write hook (an IO chip's block moved to another address lets go of the old
// chip) acts only once the change is stored, as in a batch. The block stays in memory and stored,
// no change event is sent, and the error is the store's own. In the app on the emulated chips (a
// DS2408 behind a DS2482, an MCP23017 relay board), through the real drivers, with a manual clock.
import t, { type Test } from 'tap';
import type { ChangeEvent } from '../../src/runtime/core.js';
import { type SimApp } from '../hardware/sim-app.js';
import { DS2408, MCP, relayRig } from './relay-chips.js';

interface Rig {
  s: SimApp;
  offSeen: { heater: number; cooler: number };
  events: ChangeEvent[];
  run(ms: number): Promise<void>;
  /** Make the store's removeBlock or saveBlock throw from the n-th call on (1 = the next). */
  fail(method: 'removeBlock' | 'saveBlock', from?: number): void;
}

/** The relay rig (relay-chips.ts), with the change events it sends and a store that can be made to fail. */
async function rig(t: Test): Promise<Rig> {
  const { s, offSeen, run } = await relayRig(t);
  const events: ChangeEvent[] = [];
  s.app.runtime.on('change', (ev: ChangeEvent) => events.push(ev));
  const persistence = s.app.runtime.persistence as unknown as Record<string, (...a: unknown[]) => unknown>;
  return {
    s,
    offSeen,
    events,
    run,
    fail(method, from = 1) {
      const real = persistence[method].bind(persistence);
      let calls = 0;
      persistence[method] = (...a: unknown[]) => {
        if (++calls >= from) throw new Error('disk full');
        return real(...a);
      };
      t.teardown(() => {
        persistence[method] = real;
      });
    },
  };
}

t.test('a single delete that cannot be stored leaves the actuator, its record and its relay on', async (t) => {
  const r = await rig(t);
  r.fail('removeBlock');
  t.throws(() => r.s.app.runtime.delete({ id: 'Cooler' }), /disk full/, "the store's error");
  t.ok(r.s.app.runtime.find('Cooler'), 'still in memory');
  t.same(r.events, [], 'no change event');
  await r.run(3000);
  t.equal(r.offSeen.cooler, 0, 'the relay never went off');
  t.equal(r.s.data('Cooler').state, 'STATE_ACTIVE');
  t.equal(r.s.data(MCP).channels[0].claimedBy.id, 'Cooler', 'the channel is still claimed');
  t.ok(
    r.s.app.runtime.persistence.loadBlocks().some((rec) => rec.id === 'Cooler'),
    'its record is still stored',
  );
});

t.test('a single write that cannot be stored does not let go of the IO chip it moved', async (t) => {
  const r = await rig(t);
  r.fail('saveBlock');
  t.throws(
    () => r.s.app.runtime.patch({ id: MCP, type: 'MCP23017', data: { address: 0x21 } }),
    /^disk full$/,
    "the store's error, as it was",
  );
  t.equal(r.s.data(MCP).address, 0x20, 'the address is back');
  t.same(r.events, [], 'no change event');
  await r.run(3000);
  t.equal(r.offSeen.cooler, 0, 'the chip at 0x20 was never let go: the relay stayed on');
  t.equal(r.s.data(MCP).connected, true);
});

t.test('a delete of every block that cannot be stored part way deletes none and switches nothing off', async (t) => {
  const r = await rig(t);
  const before = r.s.app.runtime.blocks().map((b) => b.id);
  r.fail('removeBlock', 2);
  t.throws(() => r.s.app.runtime.deleteAll(), /disk full/);
  t.same(
    r.s.app.runtime.blocks().map((b) => b.id),
    before,
    'every block is still there',
  );
  t.same(r.events, [], 'no change event');
  await r.run(3000);
  t.same(r.offSeen, { heater: 0, cooler: 0 }, 'neither output went off');
  const stored = r.s.app.runtime.persistence.loadBlocks().map((rec) => rec.id);
  for (const id of ['Heater', 'Cooler', DS2408, MCP]) t.ok(stored.includes(id), `${id} is still stored`);
});
