// A backup's checksum file (NAME.json.sha256) is read as the backup is: a symbolic link at its name is
// not followed, a FIFO there is not waited on, a directory or a file far larger than one line is no
// checksum. Each refuses the backup by name (a 422 at the API), with the sidecar's path, and never
// takes it as a match; the backup and its sidecar are left as they are.
import t, { type Test } from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BackupFiles, DamagedBackupError } from '../../src/store/backup-files.js';
import { needTools } from '../helpers/tools.js';

needTools('mkfifo');

function savedBackup(t: Test): { files: BackupFiles; sum: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-backups-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const files = new BackupFiles(dir);
  files.write('kept', { blocks: [] });
  const sum = path.join(files.dir, 'kept.json.sha256');
  rmSync(sum);
  return { files, sum };
}

const cases: [string, (sum: string, files: BackupFiles) => void, RegExp][] = [
  [
    'a symbolic link (to the right line elsewhere)',
    (sum, files) => {
      const elsewhere = path.join(path.dirname(files.dir), 'elsewhere.sha256');
      writeFileSync(elsewhere, `${'0'.repeat(64)}  kept.json\n`);
      symlinkSync(elsewhere, sum);
    },
    /its checksum file \S+kept\.json\.sha256 is a symbolic link, not a file/,
  ],
  ['a FIFO', (sum) => execFileSync('mkfifo', [sum]), /its checksum file \S+kept\.json\.sha256 is not a file/],
  ['a directory', (sum) => mkdirSync(sum), /its checksum file \S+kept\.json\.sha256 is not a file/],
  [
    'a file far larger than a line',
    (sum) => writeFileSync(sum, `${'0'.repeat(64)}  kept.json\n${'x'.repeat(8192)}`),
    /its checksum file \S+kept\.json\.sha256 holds no SHA-256/,
  ],
];

for (const [what, make, message] of cases) {
  t.test(`a checksum file that is ${what} refuses the backup by name`, async (t) => {
    const { files, sum } = savedBackup(t);
    make(sum, files);
    const before = readdirSync(files.dir).sort();
    const refused = t.throws(() => files.read('kept'), message, 'naming the checksum file and what it is');
    t.type(refused, DamagedBackupError, 'refused as damaged (a 422), not hung or a 500');
    t.throws(() => files.read('kept'), /remove \S+kept\.json\.sha256 and load it again/, 'and what to do');
    t.same(readdirSync(files.dir).sort(), before, 'nothing changed');
  });
}
