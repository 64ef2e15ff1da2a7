// The PID relay autotune where other features meet a running tuning (tuning-rig.ts): the pair
// deleted or disabled. Each ends the tuning with the reason that applies, or is no change to it.
import t from 'tap';
import { fermenter, tuneUntilRunningFor, tuning } from './tuning-rig.js';

const PAIR_GONE =
  /^stopped: its pair Cool PID no longer drives the other way on Beer Setpoint \(deleted, disabled or moved\)$/;

t.test('the pair deleted or disabled under a running tuning: the message says so', async (t) => {
  // Its cooler, still on the shared mutex, is then a third actuator there; that is not the news.
  const deleted = fermenter().build();
  await deleted.run(600);
  await tuneUntilRunningFor(t, deleted, 600);
  deleted.runtime.delete({ id: 'Cool PID' });
  await deleted.run(5);
  t.equal(tuning(deleted).state, 'ABORTED');
  t.match(tuning(deleted).message, PAIR_GONE);

  const disabled = fermenter().build();
  await disabled.run(600);
  await tuneUntilRunningFor(t, disabled, 600);
  disabled.runtime.patch({ id: 'Cool PID', type: 'Pid', data: { enabled: false } });
  await disabled.run(5);
  t.equal(tuning(disabled).state, 'ABORTED');
  t.match(tuning(disabled).message, PAIR_GONE);
});
