// An I/O error on a disk with no room left is the full disk (StorageHealth.noteError: status
// full, one disk-full alert), and the REST answer to that same error says so too: 507 disk full,
// not 503 "storage not writable", which would send the user to replace a card that is only full.
import t from 'tap';
import { toErrorBody } from '../../src/api/errors.js';
import { StorageHealth } from '../../src/store/storage-health.js';

t.test('an I/O error on a full disk is answered as the full disk it is counted as', async (t) => {
  const quiet = { warn: () => undefined, info: () => undefined };
  const ioError = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' });
  const storage = new StorageHealth(
    '/data',
    quiet,
    () => undefined,
    () => 0,
  );
  t.equal(storage.noteError(ioError), true);
  t.match(storage.status(), { full: true, refused: null }, 'status: the full disk');
  t.equal(toErrorBody(ioError).statusCode, 507, 'REST: 507 disk full, as status and the log say');
});
