// A datastore document whose stored text went bad (a974fa3) is left out of reads, and so out of
// every new backup. The scheduled backups made before hold its last good copy; the schedule went
// on pruning them (before a974fa3 the save failed, and nothing was pruned), so within backupKeep
// runs the document was gone from every stored backup too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { BackupFiles } from '../../src/store/backup-files.js';
import Database from '../../src/store/sqlite.js';
import { startApp } from '../helpers/app.js';

t.test("the scheduled backups holding a now damaged document's last good copy are not pruned", async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-rotten-backups-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startApp({}, { dataDir, listen: false });
  const value = { namespace: 'edge-one', id: 'alert-rules', rules: [{ kind: 'sensor-range', max: 22 }] };
  t.equal((await first.post('/history/datastore/set', { value })).status, 200);
  for (const name of ['auto-20261128T080000Z', 'auto-20261128T090000Z'])
    t.equal((await first.post('blocks/backup/stored/save', { name })).status, 200);
  await first.close();
  const db = new Database(path.join(dataDir, 'edgeblocks.db'));
  db.prepare("UPDATE documents SET value = substr(value, 1, 10) WHERE id = 'alert-rules'").run();
  db.close();

  // Every second, one kept: the schedule prunes at once.
  const rt = await startApp({ backupSchedule: '* * * * * *', backupKeep: '1' }, { dataDir });
  t.teardown(() => rt.close());
  await new Promise((r) => setTimeout(r, 2500));
  const files = new BackupFiles(dataDir);
  const names = files.list();
  const withDoc = names.filter((n) =>
    ((files.read(n) as { store?: { id: string }[] }).store ?? []).some((d) => d.id === 'alert-rules'),
  );
  t.ok(withDoc.length > 0, `a stored backup still holds the document (${names.join(', ')})`);
  t.ok(
    names.some((n) => n > 'auto-20261129'),
    'the schedule still saves',
  );
});
