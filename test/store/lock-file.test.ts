// The data dir's lock file holds nothing (it is only locked). Junk in it (a bad card, an editor)
// made SQLite answer "file is not a database" to the lock, so every start exited 2 and systemd
// restarted it until it gave up. The junk is cleared; the lock still keeps a second process out.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LOCK_FILE, lockDataDir, tryLockDataDir } from '../../src/store/data-dir-lock.js';
import { ROOT } from '../helpers/root.js';

const JUNK = [Buffer.from('not a lock\n'), Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(300, 0xa5)])];

for (const [i, junk] of JUNK.entries()) {
  t.test(`a lock file with junk in it (${i ? 'a broken header' : 'text'}) is taken, and still locks`, async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-lockfile-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(path.join(dir, LOCK_FILE), junk);
    const lock = lockDataDir(dir);
    t.teardown(() => lock.release());
    t.equal(statSync(path.join(dir, LOCK_FILE)).size, 0, 'the junk is gone');
    // Another process (fcntl locks are per process) is still refused.
    const other = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { lockDataDir } from ${JSON.stringify(path.join(ROOT, 'dist/src/store/data-dir-lock.js'))};
         try { lockDataDir(${JSON.stringify(dir)}); console.log('taken'); } catch (e) { console.log(e.message); }`,
      ],
      { encoding: 'utf8' },
    );
    t.match(other.stdout, /is in use by another edgeblocks \(pid \d+\)/, other.stderr);
  });
}

t.test('the doctor (tryLockDataDir) takes junk in the lock file for no service running, not an error', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-lockfile-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, LOCK_FILE), JUNK[0]!);
  t.same(tryLockDataDir(dir), { absent: true });
});
