// After a backup load (own, and Brewblox-style after blocks/all/delete), a restart on the same data
// dir gives every block back what it read before the restart (test/backups/restart-rig.ts: the
// demo with a running sequence of each store-mode kind and a running profile, compared in the
// stored projection at the restart and after the first update). A value a block stores only on
// some changes (a sequence's time) that a load left unstored shows here (before the fix of the
// load's store-mode reset: the load's row failed). After a rename or a write:
// restart-changes.test.ts.
import t from 'tap';
import { restartRig } from './restart-rig.js';

t.test('every block reads the same after a restart that follows a load, or a reset and a load', async (t) => {
  const rig = await restartRig(t);
  const backup = (await rig.app().post('blocks/backup/save')).body;
  await rig.runOn();
  t.equal((await rig.app().post('blocks/backup/load', backup)).status, 200);
  await rig.restart('own backup load', 'Crash');
  await rig.runOn();

  // Every block deleted, then the backup loaded as a Brewblox Spark backup (no version).
  t.equal((await rig.app().post('blocks/all/delete')).status, 200);
  const { version: _v, timestamp: _t, ...brewblox } = backup;
  t.equal((await rig.app().post('blocks/backup/load', { ...brewblox, store: [] })).status, 200);
  await rig.restart('blocks/all/delete, then a Brewblox-style backup load', 'Crash');
});
