// An upgrade that migrates the database keeps a copy of it as the older release left it, so a
// rollback to that release (which refuses a newer schema) has a database it can run on; the
// refusal names the copy. Real SQLite files, the real migrations.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import t, { type Test as Tap } from 'tap';
import { DB_FILE, migrate, openDatabase, schemaCopyFile } from '../../src/store/db.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import Database from '../../src/store/sqlite.js';
import { CLI, ROOT } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines };
}

/** A database as the release with only the first migration left it, with one block. */
function olderDatabase(dir: string): void {
  const db = new Database(path.join(dir, DB_FILE));
  migrate(db, MIGRATIONS.slice(0, 1));
  db.prepare("INSERT INTO blocks (nid, id, type, data) VALUES (100, 'Beer Sensor', 'TempSensorMock', '{}')").run();
  db.close();
}

/** A fresh dir holding a database the older release wrote and this one then migrated. */
function upgradedDir(t: Tap): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-schema-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  olderDatabase(dir);
  openDatabase(dir).close();
  return dir;
}

const version = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
};

t.test('a migration keeps the database as it was, private, and says so', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-schema-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  olderDatabase(dir);
  const { log, lines } = capture();
  const db = openDatabase(dir, log);
  t.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length, 'migrated');
  db.close();
  const copy = path.join(dir, schemaCopyFile(1));
  t.ok(existsSync(copy), `${schemaCopyFile(1)} kept`);
  t.equal(version(copy), 1, 'at the schema the older release wrote');
  const old = new Database(copy, { readonly: true });
  t.same(old.prepare('SELECT id FROM blocks').all(), [{ id: 'Beer Sensor' }], 'with its blocks');
  t.notOk(
    old.prepare("SELECT name FROM sqlite_master WHERE name = 'alert_outbox'").get(),
    'and without what the migration added',
  );
  old.close();
  t.equal(statSync(copy).mode & 0o777, 0o600, 'readable by the service user only');
  t.ok(
    lines.some((l) => String(l.msg).includes(`kept as ${schemaCopyFile(1)}`)),
    'the log says where the copy is',
  );

  // A second start on the migrated database makes no copy and leaves the old one alone.
  const before = statSync(copy).mtimeMs;
  openDatabase(dir, log).close();
  t.equal(statSync(copy).mtimeMs, before, 'no new copy without a migration');
});

t.test('the next migration keeps its own copy and removes the older one', async (t) => {
  const dir = upgradedDir(t);
  const next = [...MIGRATIONS, 'CREATE TABLE later (a TEXT)'];
  const db = new Database(path.join(dir, DB_FILE));
  t.equal(migrate(db, next), MIGRATIONS.length + 1);
  db.close();
  t.ok(existsSync(path.join(dir, schemaCopyFile(MIGRATIONS.length))), 'the copy of the schema just left');
  t.notOk(existsSync(path.join(dir, schemaCopyFile(1))), 'no copy of a schema two upgrades back');
  t.equal(version(path.join(dir, schemaCopyFile(MIGRATIONS.length))), MIGRATIONS.length);
});

t.test('a fresh database needs no copy', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-schema-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  openDatabase(dir).close();
  t.same(
    MIGRATIONS.map((_, v) => existsSync(path.join(dir, schemaCopyFile(v)))),
    MIGRATIONS.map(() => false),
  );
});

t.test('the older release refuses the migrated database and names the copy to go back to', async (t) => {
  const dir = upgradedDir(t);
  const db = new Database(path.join(dir, DB_FILE));
  const file = path.join(dir, DB_FILE);
  let refusal = '';
  try {
    migrate(db, MIGRATIONS.slice(0, 1));
  } catch (e) {
    refusal = (e as Error).message;
  }
  t.equal(
    refusal,
    `database schema version ${MIGRATIONS.length} is newer than this edgeblocks (1); upgrade edgeblocks, or go back to the copy kept before the upgrade (what changed since is lost): with the service stopped, move ${path.join(dir, schemaCopyFile(1))} over ${file} and delete ${file}-wal and ${file}-shm`,
  );
  db.close();
  // Without a copy, only the upgrade is named.
  rmSync(path.join(dir, schemaCopyFile(1)));
  const again = new Database(path.join(dir, DB_FILE));
  t.throws(() => migrate(again, MIGRATIONS.slice(0, 1)), /newer than this edgeblocks \(1\); upgrade edgeblocks$/);
  again.close();
});

t.test('a stale copy of the same schema is replaced; a copy that cannot be made does not stop the start', async (t) => {
  const dir = upgradedDir(t);
  // Rolled back onto the copy, a block added, upgraded again: the copy is the newer state.
  rmSync(path.join(dir, DB_FILE));
  for (const suffix of ['-wal', '-shm']) rmSync(path.join(dir, DB_FILE + suffix), { force: true });
  olderDatabase(dir);
  const back = new Database(path.join(dir, DB_FILE));
  back.prepare("INSERT INTO blocks (nid, id, type, data) VALUES (101, 'Fridge Sensor', 'TempSensorMock', '{}')").run();
  back.close();
  openDatabase(dir).close();
  const copy = new Database(path.join(dir, schemaCopyFile(1)), { readonly: true });
  t.equal((copy.prepare('SELECT count(*) AS n FROM blocks').get() as { n: number }).n, 2, 'the copy is the latest');
  copy.close();

  // Something in the way of the copy (here a directory that cannot be removed as a file).
  const blocked = mkdtempSync(path.join(tmpdir(), 'edgeblocks-schema-'));
  t.teardown(() => rmSync(blocked, { recursive: true, force: true }));
  olderDatabase(blocked);
  mkdirSync(path.join(blocked, schemaCopyFile(1), 'inside'), { recursive: true });
  const { log, lines } = capture();
  const db = openDatabase(blocked, log);
  t.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length, 'migrated all the same');
  db.close();
  t.ok(
    lines.some((l) => l.level === 40 && String(l.msg).includes('could not keep a copy of the database')),
    'and the log says there is no copy',
  );
});

t.test('the steps the refusal names give the older release its database back', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-schema-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  olderDatabase(dir);
  const file = path.join(dir, DB_FILE);
  openDatabase(dir).close();
  // The newer release runs and is killed (no close): its write-ahead log is left behind.
  const killed = [
    "import Database from 'better-sqlite3';",
    `const db = new Database(${JSON.stringify(file)});`,
    "db.pragma('journal_mode = WAL');",
    "db.prepare(\"INSERT INTO blocks (nid, id, type, data) VALUES (102, 'Newer', 'TempSensorMock', '{}')\").run();",
    'process.kill(process.pid, "SIGKILL");',
  ].join('\n');
  spawnSync(process.execPath, ['--input-type=module', '-e', killed]);
  t.ok(existsSync(`${file}-wal`), 'a write-ahead log of the newer release');
  renameSync(path.join(dir, schemaCopyFile(1)), file);
  rmSync(`${file}-wal`, { force: true });
  rmSync(`${file}-shm`, { force: true });
  const older = new Database(file);
  t.equal(migrate(older, MIGRATIONS.slice(0, 1)), 1, 'the older release opens it');
  t.same(older.prepare('SELECT id FROM blocks').all(), [{ id: 'Beer Sensor' }], 'as it left it');
  t.equal(older.pragma('integrity_check', { simple: true }) as string, 'ok');
  older.close();
});

t.test('the built CLI refuses a newer schema in one line, exit 2, naming the copy', async (t) => {
  const dir = upgradedDir(t);
  // As a release one migration ahead of this one left it, with the copy it kept.
  const file = path.join(dir, DB_FILE);
  const db = new Database(file);
  db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
  db.close();
  copyFileSync(file, path.join(dir, schemaCopyFile(MIGRATIONS.length)));
  const res = spawnSync(process.execPath, [CLI, '--data-dir', dir, '--port', '0', '--mqtt-port', '0'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: limit(30000),
    killSignal: 'SIGKILL',
  });
  t.equal(res.status, 2, `exit 2 (stderr: ${res.stderr})`);
  const lines = res.stderr.trim().split('\n');
  t.equal(lines.length, 1, 'one line');
  t.match(
    lines[0],
    `edgeblocks: cannot start: database schema version ${MIGRATIONS.length + 1} is newer than this edgeblocks (${MIGRATIONS.length}); upgrade edgeblocks, or go back to the copy kept before the upgrade`,
  );
  t.match(lines[0], `move ${path.join(dir, schemaCopyFile(MIGRATIONS.length))} over ${file}`);
});
