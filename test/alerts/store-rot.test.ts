// Bytes that went bad in the alert tables of a real database file: a bad active alert does not
// stop the start, a bad outbox message leaves the outbox instead of blocking the messages behind
// it, a bad history entry is left out of GET /alerts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { AlertStore } from '../../src/alerts/store.js';
import { openDatabase } from '../../src/store/db.js';

t.test('rotten rows are skipped, the good ones served', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-alert-rot-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(dir);
  t.teardown(() => db.close());
  const store = new AlertStore(db, 100);
  const message = { id: 'm-1' } as never;
  store.enqueue(message, ['ntfy', 'webhook'], 0);
  db.prepare('UPDATE alert_outbox SET message = \'{"id": "m-1"\' WHERE channel = \'ntfy\'').run();
  const due = store.due(10, 10);
  t.same(
    due.map((r) => r.channel),
    ['webhook'],
    'the good message is still due',
  );
  t.equal(
    (db.prepare('SELECT COUNT(*) AS n FROM alert_outbox').get() as { n: number }).n,
    1,
    'the rotten one left the outbox',
  );

  db.prepare('INSERT INTO alert_active (key, value) VALUES (?, ?)').run('a', '{"key": "a"');
  db.prepare('INSERT INTO alert_active (key, value) VALUES (?, ?)').run('b', '{"key": "b"}');
  t.same(store.loadActive(), [{ key: 'b' }], 'a rotten active alert does not stop the load');

  db.prepare('INSERT INTO alert_history (value) VALUES (?)').run('{"kind": "fired"}');
  db.prepare('INSERT INTO alert_history (value) VALUES (?)').run('{"kind": "fi');
  t.same(store.history(), [{ kind: 'fired' }], 'a rotten history entry is left out');
});
