// `edgeblocks doctor --root DIR` looks at a system under DIR (an SD card mounted elsewhere). A
// misspelt DIR was taken as it came: the report then said "not a Raspberry Pi?", no 1-Wire
// master, no I2C, and never that the root itself was not there. It is now refused, exit 2.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { doctor } from '../helpers/doctor.js';

t.test('--root naming no directory is refused, exit 2, naming it', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-doctor-root-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const missing = path.join(dir, 'mnt-sdcard');
  const res = doctor(['--root', missing, '--json']);
  t.equal(res.code, 2, res.stdout);
  t.equal(res.stdout, '', 'no report');
  t.equal(res.stderr, `edgeblocks doctor: --root ${missing}: no such directory\n`);
  const file = path.join(dir, 'a-file');
  writeFileSync(file, '');
  const notDir = doctor(['--root', file, '--json']);
  t.equal(notDir.code, 2);
  t.equal(notDir.stderr, `edgeblocks doctor: --root ${file}: not a directory\n`);
});
