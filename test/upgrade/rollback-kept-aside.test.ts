// Going forward again after a rollback. This release stores a PID with fields the release of
// 2026-11-28 does not know (tuning.result.shortestRun); rolled back to it (install-pi.sh --rollback),
// that release keeps both PIDs aside in the quarantine table. The fixture is the database as that
// release left it (made by it, test/fixtures/upgrade/rollback-kept-aside.sql). Started on it, this
// release, which reads those records, must bring the PIDs back: the heater and cooler PWMs had
// nothing driving them.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test as Tap } from 'tap';
import { DB_FILE } from '../../src/store/db.js';
import Database from '../../src/store/sqlite.js';
import { ROOT } from '../helpers/cli.js';
import { startApp } from '../helpers/app.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/upgrade/rollback-kept-aside.sql');

/** A data dir holding the fixture's database; `more` runs on it before the service starts. */
function dataDir(t: Tap, more?: (db: InstanceType<typeof Database>) => void): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-rollback-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = new Database(path.join(dir, DB_FILE));
  db.exec(readFileSync(FIXTURE, 'utf8'));
  db.pragma('user_version = 2');
  more?.(db);
  db.close();
  return dir;
}

function rows(dir: string, sql: string): unknown[] {
  const db = new Database(path.join(dir, DB_FILE), { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

t.test('blocks an older release kept aside come back when this release can read them', async (t) => {
  const dir = dataDir(t);
  const { post, close } = await startApp({}, { dataDir: dir, listen: false });
  try {
    const all = await post('blocks/all/read');
    const ids = (all.body as { id: string }[]).map((b) => b.id);
    t.ok(ids.includes('Heat PID') && ids.includes('Cool PID'), `both PIDs are blocks again (${ids.join(', ')})`);
    const pid = await post('blocks/read', { id: 'Heat PID' });
    t.equal(pid.status, 200);
    t.equal(pid.body.data.inputId.id, 'Beer Setpoint', 'with their links');
    t.equal(pid.body.data.outputId.id, 'Heat PWM');
    // The fixture's units document is degF: kp 60 per degC reads as 33.3 per degF.
    const kp = pid.body.data.kp as { unit: string; value: number };
    t.equal(kp.unit, '1 / degF');
    t.ok(Math.abs(kp.value * 1.8 - 60) < 0.01, `and their settings (kp ${kp.value} ${kp.unit})`);
    const status = await post('system/status');
    t.same(status.body.quarantined ?? [], [], 'nothing is listed as kept aside');
  } finally {
    await close();
  }
  t.same(rows(dir, 'SELECT nid FROM quarantine'), [], 'the quarantine table no longer holds them');
  t.same(
    rows(dir, 'SELECT nid FROM blocks WHERE nid IN (104, 107) ORDER BY nid'),
    [{ nid: 104 }, { nid: 107 }],
    'their records are block records again, under their nids',
  );
});

t.test('a kept record that still fails, or whose id is taken since, stays kept aside', async (t) => {
  const dir = dataDir(t, (db) => {
    // The brewer made a new Cool PID on the older release; an unknown type is still unknown.
    db.prepare(
      "INSERT INTO blocks (nid, id, type, data, meta) SELECT 120, id, type, data, meta FROM quarantine WHERE id = 'Cool PID'",
    ).run();
    db.prepare(
      "INSERT INTO quarantine (nid, id, type, data, meta, reason, at) VALUES (121, 'Odd', 'NoSuchType', '{}', '{}', 'unknown block type', '2026-11-28T00:00:00Z')",
    ).run();
  });
  const { post, close } = await startApp({}, { dataDir: dir, listen: false });
  try {
    const cool = await post('blocks/read', { id: 'Cool PID' });
    t.equal(cool.body.nid, 120, "the brewer's Cool PID is the one running");
    t.equal((await post('blocks/read', { id: 'Heat PID' })).status, 200, 'Heat PID is back');
    t.equal((await post('blocks/read', { id: 'Odd' })).status, 404);
    const status = await post('system/status');
    t.same(
      (status.body.quarantined as { nid: number }[]).map((q) => q.nid),
      [107, 121],
      'the other two are still listed as kept aside',
    );
  } finally {
    await close();
  }
  t.same(rows(dir, 'SELECT nid FROM quarantine ORDER BY nid'), [{ nid: 107 }, { nid: 121 }], 'and kept, once each');
});

/** The fixture with the brewer's own Cool PID (nid 120) made on the older release, the old one kept aside. */
function withNewCoolPid(t: Tap): string {
  return dataDir(t, (db) => {
    db.prepare(
      "INSERT INTO blocks (nid, id, type, data, meta) SELECT 120, id, type, data, meta FROM quarantine WHERE id = 'Cool PID'",
    ).run();
  });
}

t.test(
  'a kept record whose id a block took does not come back when the brewer deletes or renames that block',
  async (t) => {
    for (const how of ['delete', 'rename'] as const) {
      const dir = withNewCoolPid(t);
      let app = await startApp({}, { dataDir: dir, listen: false });
      try {
        t.equal((await app.post('blocks/read', { id: 'Cool PID' })).body.nid, 120);
        const res =
          how === 'delete'
            ? await app.post('blocks/delete', { id: 'Cool PID' })
            : await app.post('blocks/rename', { existing: 'Cool PID', desired: 'Fermenter Cool PID' });
        t.equal(res.status, 200, how);
      } finally {
        await app.close();
      }
      app = await startApp({}, { dataDir: dir, listen: false });
      try {
        t.equal(
          (await app.post('blocks/read', { id: 'Cool PID' })).status,
          404,
          `after a ${how} and a restart, the old Cool PID kept aside does not run again`,
        );
        const all = (await app.post('blocks/all/read')).body as { id: string; data: { outputId?: { id: string } } }[];
        const drivers = all.filter((b) => b.data.outputId?.id === 'Cool PWM').map((b) => b.id);
        t.same(
          drivers,
          how === 'delete' ? [] : ['Fermenter Cool PID'],
          'what drives the cooler is what the brewer left',
        );
        const status = await app.post('system/status');
        t.ok(
          (status.body.quarantined as { nid: number }[]).some((q) => q.nid === 107),
          'the record is still kept aside (listed), not dropped',
        );
      } finally {
        await app.close();
      }
    }
  },
);

t.test('a backup load settles the records kept aside: none comes back at a later start', async (t) => {
  const dir = withNewCoolPid(t);
  let app = await startApp({}, { dataDir: dir, listen: false });
  let saved: unknown;
  try {
    saved = (await app.post('blocks/backup/save')).body;
  } finally {
    await app.close();
  }
  // The backup without the brewer's Cool PID: loading it is what the brewer wants running.
  const backup = saved as { blocks: { id: string }[] };
  backup.blocks = backup.blocks.filter((b) => b.id !== 'Cool PID');
  app = await startApp({}, { dataDir: dir, listen: false });
  try {
    t.equal((await app.post('blocks/backup/load', backup)).status, 200);
  } finally {
    await app.close();
  }
  app = await startApp({}, { dataDir: dir, listen: false });
  try {
    t.equal(
      (await app.post('blocks/read', { id: 'Cool PID' })).status,
      404,
      'no Cool PID after the load and a restart',
    );
  } finally {
    await app.close();
  }
});

t.test('a kept record does not come back to drive an output a block made since drives', async (t) => {
  // On the older release the brewer found Cool PID gone and made Fermenter Cool PID for the cooler.
  const dir = dataDir(t, (db) => {
    db.prepare(
      "INSERT INTO blocks (nid, id, type, data, meta) SELECT 120, 'Fermenter Cool PID', type, data, meta FROM quarantine WHERE id = 'Cool PID'",
    ).run();
  });
  const { post, close } = await startApp({}, { dataDir: dir, listen: false });
  try {
    const all = (await post('blocks/all/read')).body as { id: string; data: { outputId?: { id: string } } }[];
    const drivers = all.filter((b) => b.data.outputId?.id === 'Cool PWM').map((b) => b.id);
    t.same(drivers, ['Fermenter Cool PID'], 'one PID drives the cooler: the one the brewer made');
    t.equal((await post('blocks/read', { id: 'Heat PID' })).status, 200, 'Heat PID, which nothing took over, is back');
    const status = await post('system/status');
    t.same(
      (status.body.quarantined as { nid: number }[]).map((q) => q.nid),
      [107],
      'the old Cool PID is still listed as kept aside',
    );
  } finally {
    await close();
  }
});

t.test('a kept actuator comes back beside the others on its IO array (each drives a channel of its own)', async (t) => {
  const dir = dataDir(t, (db) => {
    const cooler = db.prepare("SELECT nid, id, type, data, meta FROM blocks WHERE id = 'Cooler'").get() as Record<
      string,
      unknown
    >;
    db.prepare(
      "INSERT INTO quarantine (nid, id, type, data, meta, reason, at) VALUES (@nid, @id, @type, @data, @meta, 'unknown field', '2026-11-28T00:00:00Z')",
    ).run(cooler);
    db.prepare("DELETE FROM blocks WHERE id = 'Cooler'").run();
  });
  const { post, close } = await startApp({}, { dataDir: dir, listen: false });
  try {
    const cooler = await post('blocks/read', { id: 'Cooler' });
    const heater = await post('blocks/read', { id: 'Heater' });
    t.equal(cooler.status, 200, 'the Cooler is back');
    t.equal(cooler.body.data.hwDevice.id, heater.body.data.hwDevice.id, 'on the IO array the Heater drives too');
  } finally {
    await close();
  }
});
