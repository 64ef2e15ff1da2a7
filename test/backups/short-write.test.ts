// A backup written on a card with less room than the backup takes: the kernel takes what fits and
// says how much (a short write), and only the next write fails. Since 47b0c25 the file is written
// with one writeSync, whose count was not looked at: the part that fitted was synced, renamed to
// the real name and reported saved, and the schedule pruned a whole backup for it.
import { existsSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { BackupFiles } from '../../src/store/backup-files.js';
import { fill, smallDisk } from '../helpers/small-disk.js';

t.test('a backup that does not fit is refused, not stored cut short', async (t) => {
  const disk = smallDisk('edgeblocks-backup-short-', '2m');
  t.teardown(() => disk.unmount());
  const files = new BackupFiles(disk.mountPoint);
  files.write('small', { blocks: [] });
  // Leave some 300 KiB free.
  const filler = path.join(disk.mountPoint, 'filler');
  writeFileSync(filler, Buffer.alloc(2 * 1024 * 1024 - 300 * 1024 - 64 * 1024));
  t.teardown(() => rmSync(filler, { force: true }));
  const big = { blocks: [{ id: 'x', data: { text: 'a'.repeat(1024 * 1024) } }] };
  t.throws(() => files.write('big', big), 'the write fails');
  t.notOk(existsSync(path.join(files.dir, 'big.json')), 'no file under the name');
  t.same(
    readdirSync(files.dir).filter((f) => f.endsWith('.tmp')),
    [],
    'no temporary file left',
  );
  t.ok(statSync(path.join(files.dir, 'small.json')).size > 0);
});

t.test('a card with room for a new backup but not its checksum: refused whole, nothing stored', async (t) => {
  const disk = smallDisk('edgeblocks-backup-sum-', '2m');
  t.teardown(() => disk.unmount());
  const files = new BackupFiles(disk.mountPoint);
  files.write('other', { blocks: [] });
  const next = { blocks: [{ id: 'Beer Setpoint', data: { storedSetting: 21, note: 'b'.repeat(20_000) } }] };
  // Full to the last byte, then exactly the pages the new backup takes freed: it fits, its
  // checksum (one more page) does not. The save used to rename the backup into place first and
  // then fail on its checksum: reported failed, yet stored without one.
  const filler = path.join(disk.mountPoint, 'filler');
  fill(filler);
  t.teardown(() => rmSync(filler, { force: true }));
  const pages = Math.ceil(Buffer.byteLength(JSON.stringify(next)) / 4096) * 4096;
  truncateSync(filler, statSync(filler).size - pages);
  t.throws(() => files.write('beer', next), { code: 'ENOSPC' }, 'the save fails as a full card');
  t.notOk(existsSync(path.join(files.dir, 'beer.json')), 'no backup under the name');
  t.notOk(existsSync(path.join(files.dir, 'beer.json.sha256')), 'no checksum under the name');
  t.same(
    readdirSync(files.dir).filter((f) => f.endsWith('.tmp')),
    [],
    'no temporary file left',
  );
  t.ok(existsSync(path.join(files.dir, 'other.json.sha256')), 'the other backup keeps its checksum');
});
