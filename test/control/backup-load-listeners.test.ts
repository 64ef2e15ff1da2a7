// A backup load tells the datastore's listeners of the documents it replaced once its transaction
// committed, then acts on the hardware (a deleted actuator's output off) and runs the blocks. A
// listener that throws is logged: the listeners after it still hear of the change, and the load
// still switches off what it deleted. In the app on the emulated chips, with a manual clock.
import t from 'tap';
import type { Doc } from '../../src/store/documents.js';
import { simApp } from '../hardware/sim-app.js';
import { MCP, SIM } from './relay-chips.js';
import { link } from './setup.js';

t.test(
  "a listener that throws while a backup load's documents are told stops neither the others nor the hardware",
  async (t) => {
    const s = await simApp({ sim: SIM });
    t.teardown(() => s.close());
    await s.post('blocks/discover');
    t.equal((await s.post('blocks/patch', { id: MCP, type: 'MCP23017', data: { activeLow: true } })).status, 200);
    const created = await s.post('blocks/create', {
      id: 'Cooler',
      type: 'DigitalActuator',
      data: { hwDevice: link(MCP), channel: 1, storedState: 'STATE_ACTIVE' },
    });
    t.equal(created.status, 201);
    await s.run(3000);
    const chip = s.app.hardware.sim!.i2cIo.find((e) => e.spec.name === 'board')!.chip as unknown as {
      iodir: number;
      pins(): number;
    };
    const relay = () => (chip.iodir & 1) === 0 && (chip.pins() & 1) === 0;
    t.ok(relay(), 'the cooler relay is on');

    const backup = s.app.runtime.backupSave();
    backup.blocks = backup.blocks.filter((b) => b.id !== 'Cooler');
    const serviceId = backup.blocks[0]!.serviceId;
    backup.store = [...(backup.store as Doc[]), { namespace: serviceId, id: 'note', text: 'from the backup' }];
    s.app.documents.on('changed', () => {
      throw new Error('a listener with a bug');
    });
    const heard: string[] = [];
    s.app.documents.on('changed', (docs: Doc[]) => heard.push(...docs.map((d) => d.id)));

    const result = await s.app.runtime.backupLoad(backup);
    t.same(result.failures, [], 'the load succeeded');
    t.same(heard, ['note'], 'the listener after the one that threw heard of the document');
    await s.run(1000);
    t.notOk(relay(), "the deleted cooler's relay is off");
    t.notOk(s.app.runtime.find('Cooler'));
  },
);
