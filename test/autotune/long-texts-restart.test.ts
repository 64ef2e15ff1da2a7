// A text the tuning writes itself can name blocks, and a block id may be 200 characters: a
// message of "stopped: <id> is being tuned as the pair of <id>" outgrows its field of 300. Stored
// as it was, the record failed to decode at the next start and the whole PID was kept aside.
// The codec now never encodes a string longer than its field; the PID comes back.
import t from 'tap';
import { MemoryPersistence } from '../../src/runtime/persistence.js';
import { Fermenter } from '../helpers/fermenter.js';

const fermenter = (persistence?: MemoryPersistence) =>
  new Fermenter({ setpoint: 20, stepMs: 1000, persistence, plant: { ambient: 20, initial: { beer: 20, air: 20 } } });

t.test('a tuning message longer than its field is stored clipped, and the PID loads after a restart', async (t) => {
  const f = fermenter().build();
  await f.run(60);
  const name = `Kegerator "Ünïcødé" 🍺 / ${'x'.repeat(170)}`;
  const long = `stopped: ${name} is being tuned as the pair of ${name}`;
  t.ok(long.length > 300, `the message is ${long.length} characters`);
  const block = f.block('Heat PID');
  (block.data as { tuning: { message: string } }).tuning.message = long;
  // Any write of the block stores its record, the message with it.
  f.runtime.patch({ id: 'Heat PID', type: 'Pid', data: { tuning: { amplitude: 0.6 } } });
  const stored = JSON.parse(f.persistence.records.get(block.nid)!.data).tuning.message as string;
  t.ok(stored.length <= 300 && stored.endsWith('\u2026'), `stored ${stored.length} characters, clipped`);
  t.ok(long.startsWith(stored.slice(0, -1)), 'the start of the message is kept');

  const copy = new MemoryPersistence();
  copy.records = new Map(f.persistence.records);
  const again = fermenter(copy);
  t.equal(copy.quarantined().length, 0, 'no record kept aside');
  t.equal(again.data('Heat PID').tuning.message, stored, 'the PID is back, with its message');
  t.equal(again.data('Heat PID').kp, f.data('Heat PID').kp, 'and its gains');
});
