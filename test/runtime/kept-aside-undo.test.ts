// A block kept aside earlier whose taking back at a start cannot be stored (a full or failing
// card) never ran: it is taken back without its delete hook, which would act on hardware another
// block uses (let go of an IO chip a live block of the same address drives).
import t from 'tap';
import { f } from '../../src/codec/fields.js';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { defineBlock } from '../../src/runtime/types.js';
import { testRuntime } from '../helpers/runtime.js';

const deleteHooks: string[] = [];
const Probe = defineBlock({
  type: 'Probe',
  role: 'controller',
  fields: { interval: f.number({ stored: true, default: 1000 }) },
  implements: [],
  update(_block, ctx) {
    return ctx.now + 1000;
  },
  onDelete(block) {
    deleteHooks.push(block.id);
  },
});

/** Its next transaction runs, then cannot be committed. */
class FailingCommit extends MemoryPersistence {
  failNext = false;
  override transaction<T>(fn: () => T): T {
    if (!this.failNext) return super.transaction(fn);
    this.failNext = false;
    return super.transaction(() => {
      fn();
      throw new Error('disk full');
    });
  }
}

t.test('a kept-aside block whose taking back cannot be stored is dropped without its delete hook', async (t) => {
  const persistence = new FailingCommit();
  const first = testRuntime({ extraTypes: [Probe], persistence }).runtime;
  first.create({ id: 'old probe', type: 'Probe', data: {} });
  const nid = first.find('old probe')!.nid;
  const record = persistence.records.get(nid)!;
  persistence.records.delete(nid);
  persistence.held.push({ ...record, reason: 'kept aside by an older release', at: '2026-11-28T00:00:00Z', seq: 1 });
  persistence.failNext = true;
  const { runtime } = testRuntime({ extraTypes: [Probe], persistence });
  t.notOk(runtime.find('old probe'), 'not in memory');
  t.same(deleteHooks, [], 'its delete hook did not run');
  t.equal(persistence.quarantined().length, 1, 'still kept aside');
});
