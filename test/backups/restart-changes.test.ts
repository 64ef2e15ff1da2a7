// After renames (a PID, the mutex, a setpoint, a running sequence) and then writes (a PID's gain, a
// sequence disabled), a restart on the same data dir gives every block back what it read before
// the restart (test/backups/restart-rig.ts: the demo with a running sequence of each store-mode
// kind and a running profile, compared in the stored projection at the restart and after the first
// update). A value a block stores only on some changes (a sequence's time) that a rename or a write
// left unstored shows here. After backup loads: restart-reads.test.ts.
import t from 'tap';
import { restartRig } from './restart-rig.js';

t.test('every block reads the same after a restart that follows a rename, then a write', async (t) => {
  const rig = await restartRig(t);
  for (const [from, to] of [
    ['Heat PID', 'Heat PID 2'],
    ['Heat Cool Mutex', 'Mutex 2'],
    ['Beer Setpoint', 'Beer Setpoint 2'],
    ['Crash', 'Crash 2'],
  ])
    t.equal((await rig.app().post('blocks/rename', { existing: from, desired: to })).status, 200, `${from} renamed`);
  await rig.restart('rename', 'Crash 2');
  await rig.runOn();

  const patch = (body: unknown) => rig.app().post('blocks/patch', body);
  t.equal((await patch({ id: 'Heat PID 2', type: 'Pid', data: { kp: 20 } })).status, 200);
  t.equal((await patch({ id: 'Crash 2', type: 'Sequence', data: { enabled: false } })).status, 200);
  await rig.restart('write', 'Crash 2');
});
