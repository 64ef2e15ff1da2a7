// Review: an I/O error on a disk with no room is the full disk (StorageHealth.noteError: status
// full, one disk-full alert, the log says "changes are refused (507)"), but the REST answer to the
// very same error is classified by its code alone (api/errors.ts toErrorBody): 503 "storage not
// writable ... (read-only or failing; see system/status)", while system/status shows full: true
// and refused: null. The rule "IOERR with no room left is the full disk" lives in storage-health.ts
// (and db.ts onFullDisk) but not where the status code is chosen.
import t from 'tap';
import { toErrorBody } from '../../src/api/errors.js';
import { StorageHealth } from '../../src/store/storage-health.js';

t.test('an I/O error on a full disk is answered as the full disk it is counted as', async (t) => {
  const quiet = { warn: () => undefined, info: () => undefined };
  const ioError = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' });
  const storage = new StorageHealth('/data', quiet, () => undefined, () => 0);
  t.equal(storage.noteError(ioError), true);
  t.match(storage.status(), { full: true, refused: null }, 'status: the full disk');
  t.equal(toErrorBody(ioError).statusCode, 507, 'REST: 507 disk full, as status and the log say');
});
