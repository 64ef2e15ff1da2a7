// A damaged database (src/store/salvage.ts) loses the rows on its damaged pages, and the alert
// sends the user to the stored backups for them. The schedule went on pruning: with the default
// hourly schedule and 48 kept, two days later (sooner with fewer kept) every backup from before the
// damage was gone, and with it the only copy of what was lost.
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { BackupFiles } from '../../src/store/backup-files.js';
import { startApp } from '../helpers/app.js';

t.test('the scheduled backups made before a damaged database was found are not pruned', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-damaged-backups-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startApp({}, { dataDir, listen: false });
  t.equal((await first.post('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: {} })).status, 201);
  const files = new BackupFiles(dataDir);
  const before = ['auto-20261128T080000Z', 'auto-20261128T090000Z'];
  for (const name of before) t.equal((await first.post('blocks/backup/stored/save', { name })).status, 200);
  await first.close();
  const fd = openSync(path.join(dataDir, 'edgeblocks.db'), 'r+');
  writeSync(fd, Buffer.alloc(16, 0xa5), 0, 16, 0);
  closeSync(fd);

  // Every second, one kept: the schedule prunes at once.
  const rt = await startApp({ backupSchedule: '* * * * * *', backupKeep: '1' }, { dataDir });
  t.teardown(() => rt.close());
  await new Promise((r) => setTimeout(r, 2500));
  const names = files.list();
  for (const name of before) {
    const kept = names.find((n) => n.endsWith(name));
    t.ok(kept, `the backup ${name} from before the damage is still stored (${names.join(', ')})`);
    const ids = kept ? (files.read(kept) as { blocks: { id: string }[] }).blocks.map((b) => b.id) : [];
    t.ok(ids.includes('Beer Sensor'), 'with the blocks that were lost');
  }
  t.ok(
    names.some((n) => /^auto-/.test(n)),
    'the schedule still saves',
  );
});
