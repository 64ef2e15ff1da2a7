// A rename of a stored backup (the keep-before-damage step at start) whose source is not there (removed
// by hand, or by another process, after it was listed) dropped the checksum of the backup under the
// target name before the rename failed: that backup then loaded unchecked. Such a rename now changes
// nothing and says which backup is missing.
import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BackupFiles, ChangedBackupError } from '../../src/store/backup-files.js';

t.test('a rename whose source is missing changes nothing and names it', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-backups-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const files = new BackupFiles(dir);
  files.write('target', { blocks: [] });
  const before = Object.fromEntries(readdirSync(files.dir).map((f) => [f, readFileSync(path.join(files.dir, f))]));

  t.throws(
    () => files.rename('gone', 'target'),
    /stored backup 'gone' cannot be renamed to 'target': there is no \S+gone\.json; nothing was changed/,
    'refused, naming the missing backup',
  );
  t.same(
    Object.fromEntries(readdirSync(files.dir).map((f) => [f, readFileSync(path.join(files.dir, f))])),
    before,
    'the target and its checksum are as they were',
  );
  writeFileSync(path.join(files.dir, 'target.json'), '{"blocks": [1]}');
  t.type(
    t.throws(() => files.read('target')),
    ChangedBackupError,
    'the target is still checked against its checksum',
  );
});

t.test('a rename of a backup that is there still moves it with its checksum', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-backups-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const files = new BackupFiles(dir);
  files.write('from', { blocks: [] });
  files.rename('from', 'to');
  t.same(readdirSync(files.dir).sort(), ['to.json', 'to.json.sha256']);
  t.same(files.read('to'), { blocks: [] });
});
