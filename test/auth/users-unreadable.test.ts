// A users file the service may not read (its data dir chowned to another user while it runs, the
// advice of an older release) was thrown from the 1 s watcher, uncaught: the service exited and
// control stopped. It now leaves nobody able to log in, as a damaged file does, and control goes on.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { UsersFile } from '../../src/auth/users.js';
import { UsersFileUnreadable } from '../../src/auth/users-format.js';

t.test('a users file that cannot be read locks logins instead of throwing', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-users-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const users = new UsersFile(dir);
  t.equal(users.loadOrLock(), null, 'no file: no users, no error');
  // A directory where the file should be: read as any file the service may not read (EISDIR,
  // as EACCES is for a user that is not root).
  mkdirSync(users.file);
  writeFileSync(path.join(users.file, 'x'), '');
  let error: unknown = null;
  t.doesNotThrow(() => {
    error = users.refresh();
  }, 'the watcher does not throw');
  t.ok(error instanceof UsersFileUnreadable, 'the error is returned');
  t.match((error as Error).message, /cannot be read \(EISDIR\): the data dir must belong to the service's user/);
  t.same(users.names(), [], 'nobody can log in');
  t.equal(users.broken, error, 'and it is said until fixed');
});
