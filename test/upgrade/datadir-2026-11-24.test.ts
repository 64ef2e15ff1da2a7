// An upgrade from the release of 2026-11-24 (ab19dd9: database schema 1, before the alerts'
// migration, the users file before roles, history format 2), pinned: no bug was found on this path.
// test/fixtures/upgrade/datadir-2026-11-24 is the data dir that release wrote (the database as an
// sqlite3 dump; its users file, stored backup and history files as they were). This release
// started on it keeps every block and setting, the units document, the user and the API's login,
// the stored backup (listed, loads), every history field and point, and keeps the schema-1 copy
// for a rollback.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { DB_FILE, schemaCopyFile } from '../../src/store/db.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import Database from '../../src/store/sqlite.js';
import { ROOT } from '../helpers/cli.js';
import { startApp } from '../helpers/app.js';
import { ManualTimers } from '../helpers/manual-timers.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/upgrade/datadir-2026-11-24');

function olderDataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-1124-'));
  for (const part of ['users.json', 'backups', 'history'])
    cpSync(path.join(FIXTURE, part), path.join(dir, part), { recursive: true });
  const db = new Database(path.join(dir, DB_FILE));
  db.exec(readFileSync(path.join(FIXTURE, 'edgeblocks.sql'), 'utf8'));
  db.pragma('user_version = 1');
  db.close();
  return dir;
}

t.test('a data dir of the release of 2026-11-24 is all there after the upgrade', async (t) => {
  const dir = olderDataDir();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const stored = new Database(path.join(dir, DB_FILE), { readonly: true });
  const before = stored.prepare('SELECT nid, id, type, data FROM blocks ORDER BY nid').all() as {
    nid: number;
    id: string;
    type: string;
    data: string;
  }[];
  stored.close();
  const fieldsBefore = readFileSync(path.join(FIXTURE, 'history/fields.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l)[1] as string);

  // The wall clock a minute after the older release first stored its fields (raw points are kept 2
  // days: a test run later on the real clock would find them expired).
  const firstStored = Math.max(
    ...readFileSync(path.join(FIXTURE, 'history/fields.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)[2] as number),
  );
  const clock = new ManualClock(0, firstStored + 60_000);
  const timers = new ManualTimers(clock);
  const { app, post, close } = await startApp({ auth: 'true' }, { dataDir: dir, listen: false, clock, timers });
  try {
    // The older release's user logs in; the rest goes with the session.
    const login = await app.http.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ username: 'brewer', password: 'brewer-pw-123' }),
    });
    t.equal(login.statusCode, 200, login.body);
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    const call = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
      const res = await app.http.inject({
        method,
        url,
        headers: { 'content-type': 'application/json', cookie },
        payload: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
    };
    t.equal((await post('blocks/all/read')).status, 401, 'auth is on');

    const blocks = (await call('POST', '/edge-one/blocks/all/read', {})).body as {
      nid: number;
      id: string;
      type: string;
    }[];
    for (const b of before)
      t.ok(
        blocks.some((x) => x.nid === b.nid && x.id === b.id && x.type === b.type),
        `${b.type} ${b.id} (nid ${b.nid}) is there`,
      );
    const mash = (await call('POST', '/edge-one/blocks/read', { id: 'Mash Setpoint' })).body;
    t.equal(mash.data.storedSetting.unit, 'degF');
    t.ok(Math.abs(mash.data.storedSetting.value - 152) < 1e-6, `the setting holds (${mash.data.storedSetting.value})`);
    const status = (await call('GET', '/edge-one/system/status')).body;
    t.same(status.quarantined, [], 'no record kept aside');
    t.same(status.units, { temperature: 'degF' }, 'the units document holds');

    const backups = (await call('POST', '/edge-one/blocks/backup/stored/all', {})).body;
    t.same(backups, [{ name: 'before-upgrade' }], 'the stored backup is listed');
    const loaded = await call('POST', '/edge-one/blocks/backup/stored/load', { name: 'before-upgrade' });
    t.equal(loaded.status, 200);
    t.same(loaded.body.failures, [], 'and loads whole');

    const fields = (await call('POST', '/history/timeseries/fields', {})).body as string[];
    for (const f of fieldsBefore) t.ok(fields.includes(f), `history field ${f}`);
    const field = 'edge-one/Beer Setpoint/value[degF]';
    const csv = await app.http.inject({
      method: 'POST',
      url: '/history/timeseries/csv',
      headers: { 'content-type': 'application/json', cookie },
      payload: JSON.stringify({
        fields: [field],
        start: '2026-11-29T00:00:00Z',
        end: '2026-11-30T00:00:00Z',
        precision: 's',
      }),
    });
    t.equal(csv.statusCode, 200, csv.body.slice(0, 300));
    const lines = csv.body.trim().split('\n');
    t.ok(lines.length > 5, `the older release's points are read (${lines.length - 1})`);
    t.equal((await call('GET', '/edge-one/system/status')).body.history.corruptRecords.count, 0);
  } finally {
    await close();
  }
  const db = new Database(path.join(dir, DB_FILE), { readonly: true });
  t.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length, 'the database is migrated');
  db.close();
  t.ok(existsSync(path.join(dir, schemaCopyFile(1))), 'and the copy for a rollback is kept');
});
