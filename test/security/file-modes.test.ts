// The data dir is the service user's only (issue 15, item 7): the dir 0700, the SQLite
// database with its -wal and -shm files, stored backups and the gateway key 0600, whatever the
// umask; the database and key an older version left with wider modes are tightened at start-up.
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { KEY_FILE } from '../../src/mqtt/tls-cert.js';
import { DB_FILE } from '../../src/store/db.js';
import { startApp } from '../helpers/app.js';
import { freePort } from '../helpers/mosquitto.js';

const mode = (file: string) => (statSync(file).mode & 0o777).toString(8).padStart(4, '0');

t.test('data dir, database, backups and gateway key are private', async (t) => {
  const previous = process.umask(0o022);
  t.teardown(() => void process.umask(previous));
  const root = mkdtempSync(path.join(tmpdir(), 'edgeblocks-modes-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const dataDir = path.join(root, 'data');
  const db = path.join(dataDir, DB_FILE);

  const run = async () => {
    const rt = await startApp({ httpsPort: String(await freePort()) }, { dataDir });
    try {
      const created = await rt.post('blocks/create', { id: `Sensor ${Date.now()}`, type: 'TempSensorMock', data: {} });
      t.equal(created.status, 201, 'a block is written, so the WAL is in use');
      t.equal((await rt.post('blocks/backup/stored/save', { name: 'nightly' })).status, 200, 'a backup is stored');
      t.ok(existsSync(`${db}-wal`) && existsSync(`${db}-shm`), 'the WAL files exist while the app runs');
      const files = {
        [dataDir]: '0700',
        [db]: '0600',
        [`${db}-wal`]: '0600',
        [`${db}-shm`]: '0600',
        [path.join(dataDir, 'backups')]: '0700',
        [path.join(dataDir, 'backups', 'nightly.json')]: '0600',
        [path.join(dataDir, KEY_FILE)]: '0600',
      };
      for (const [file, want] of Object.entries(files))
        t.equal(mode(file), want, `${path.relative(root, file)} is ${want}`);
    } finally {
      await rt.close();
    }
  };
  await run();

  // An older version's files, world-readable: tightened on the next start.
  for (const f of [db, path.join(dataDir, KEY_FILE)]) chmodSync(f, 0o644);
  chmodSync(dataDir, 0o755);
  await run();
});
