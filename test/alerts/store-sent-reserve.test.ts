// An alert sent while the disk refuses the outbox row's delete (the month soak: a day-long full
// disk, where SQLite's own free pages took some writes and not others) is not sent again after a
// restart: the row's seq goes to a reserve file, the next start leaves it, and it is deleted once
// the disk has room. The disk is a database whose deletes of outbox rows fail as SQLite's do on a
// full disk (SQLITE_FULL); the rest is a real database file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { SENT_RESERVE_BYTES, SENT_RESERVE_FILE } from '../../src/alerts/active-reserve.js';
import { AlertStore } from '../../src/alerts/store.js';
import { type Db, openDatabase } from '../../src/store/db.js';
import { ReserveFile } from '../../src/store/reserve-file.js';

t.test('a row sent but not deleted on a full disk is not sent again after a restart', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-alert-sent-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const real = openDatabase(dir);
  t.teardown(() => real.close());
  let full = false;
  const db = new Proxy(real, {
    get(target, prop) {
      if (prop === 'prepare')
        return (sql: string) => {
          if (full && sql.startsWith('DELETE FROM alert_outbox'))
            return {
              run: () => {
                throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
              },
            };
          return target.prepare(sql);
        };
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as Db;
  const start = () =>
    new AlertStore(
      db,
      100,
      undefined,
      undefined,
      new ReserveFile(path.join(dir, SENT_RESERVE_FILE), SENT_RESERVE_BYTES, 'the sent reserve'),
    );
  const rows = () => (real.prepare('SELECT COUNT(*) AS n FROM alert_outbox').get() as { n: number }).n;

  let store = start();
  store.enqueue({ id: 'disk-full-1' } as never, ['webhook'], 0);
  const [row] = store.due(10, 10);
  t.equal(row?.messageId, 'disk-full-1');
  full = true;
  store.delivered(row!.seq); // sent; its delete refused
  t.same(store.due(20, 10), [], 'not due again in this run');
  t.equal(rows(), 1, 'the row is still in the table');

  store = start(); // a restart, the disk still full
  t.same(store.due(30, 10), [], 'not due again after the restart: it was sent');
  t.equal(store.pending(), 0);

  full = false; // room again
  t.same(store.due(40, 10), [], 'still not due');
  t.equal(rows(), 0, 'deleted once the disk has room');
  store = start();
  t.same(store.due(50, 10), [], 'and the reserve is blank: nothing is hidden or sent after the next start');
  store.enqueue({ id: 'next' } as never, ['webhook'], 50);
  t.same(
    store.due(60, 10).map((r) => r.messageId),
    ['next'],
    'a new message goes as usual',
  );
});

t.test('a sent reserve gone bad neither hides nor deletes a row that waits to be sent', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-alert-sent-rot-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(dir);
  t.teardown(() => db.close());
  const file = path.join(dir, SENT_RESERVE_FILE);
  const start = () => new AlertStore(db, 100, undefined, undefined, new ReserveFile(file, SENT_RESERVE_BYTES, 'x'));
  const store = start();
  store.enqueue({ id: 'waiting' } as never, ['webhook'], 0);
  const [row] = store.due(10, 10);
  // A digit flipped into this row's seq, another entry naming a message the row does not hold,
  // and plain junk: none of them may take the row.
  const text = JSON.stringify([
    row!.seq,
    [row!.seq, 'some-other-message'],
    [row!.seq],
    'junk',
    [row!.seq + 1, 'waiting'],
  ]);
  writeFileSync(file, text.padEnd(SENT_RESERVE_BYTES, ' '));
  const again = start();
  t.same(
    again.due(20, 10).map((r) => r.messageId),
    ['waiting'],
    'the waiting row is still due after the restart',
  );
  t.equal((db.prepare('SELECT COUNT(*) AS n FROM alert_outbox').get() as { n: number }).n, 1, 'and still stored');
});
