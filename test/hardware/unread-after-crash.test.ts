// A restart after a kill -9 that left relays on, with a module that answers writes but whose
// reads keep failing (every frame it sends garbled: a flaky line). Each DigitalActuator waits for
// its channel to be read before writing (crash-latches.test.ts), but not for ever: after a bound
// it writes what is stored, its output counted as off since then. The relay stored off goes off
// (off is always safe), the one stored on is written on, and one stored on with a minimum off
// time goes off and waits it out, as after switching off. On the emulated DS2408, real drivers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { SimDs2408 } from '../../drivers/sim/onewire-ds2408.js';
import { simApp } from './sim-app.js';
import { leftOnSim } from './relay-boards.js';

const link = (id: string) => ({ __objtype: 'Link', id });
const BOARD = 'DS2408 0000000000d1';

const sim = (leftOn: number[]) => leftOnSim(leftOn);

t.test('a module whose reads fail after a crash: written as stored after a bound', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-unread-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const first = await simApp({ sim: sim([]), dataDir: dir });
  t.teardown(() => first.close());
  await first.post('blocks/discover');
  const actuator = async (id: string, channel: number, on: boolean, constraints = {}) => {
    const res = await first.post('blocks/create', {
      id,
      type: 'DigitalActuator',
      data: { hwDevice: link(BOARD), channel, storedState: on ? 'STATE_ACTIVE' : 'STATE_INACTIVE', constraints },
    });
    if (res.status !== 201) throw new Error(`${id}: ${res.status} ${JSON.stringify(res.body)}`);
  };
  await actuator('Lamp', 1, false);
  await actuator('Pump', 2, true);
  const minOff = { minOff: { duration: { __objtype: 'Quantity', unit: 's', value: 600 }, enabled: true } };
  await actuator('Compressor', 3, true, minOff);
  await first.run(2000);
  await first.close();

  const s = await simApp({ sim: sim([1, 2, 3]), dataDir: dir });
  t.teardown(() => s.close());
  s.app.hardware.sim!.injectFault('relays', 'crc', Number.POSITIVE_INFINITY);
  const relays = s.app.hardware.sim!.devices().find((d) => d.spec.name === 'relays')!.model as unknown as SimDs2408;
  await s.run(60_000, 250);
  t.equal(s.data(BOARD).connected, false, 'the module never read');
  t.equal(relays.activeOutputs() & 1, 0, 'the lamp, stored off, was switched off');
  t.equal(relays.activeOutputs() & 2, 2, 'the pump, stored on, is on');
  t.equal(relays.activeOutputs() & 4, 0, 'the compressor went off, for its minimum off time');
  t.equal(s.data('Compressor').constraints.minOff.limiting, true, 'and waits it out');
  t.equal(s.data('Lamp').state, null, 'the state read back stays unknown');
});
