// Bit rot in a single row of the settings table of a whole database (SQLite's checks pass; the
// value in the row is not one). A rotten `next_nid` made every block create fail (NaN nids), and
// a rotten `control_enabled` read as enabled without a word. Now the next nid is recomputed above
// every nid in use (no block's number is handed out twice) with a warning, and a rotten
// control_enabled keeps control on (a fermenter stays held) but says so: a warning in the log and
// the "stored document damaged" alert, until control is set again.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createLogger } from '../../src/log.js';
import Database from '../../src/store/sqlite.js';
import { startApp } from '../helpers/app.js';

function setRow(dataDir: string, key: string, value: unknown): void {
  const db = new Database(path.join(dataDir, 'edgeblocks.db'));
  db.prepare('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)').run(key, value);
  db.close();
}

function tempDir(t: Test): string {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-rot-settings-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  return dataDir;
}

function logLines() {
  const lines: string[] = [];
  const log = createLogger('info', {}, { write: (s: string) => lines.push(s), isTTY: false }, 'json');
  return { log, lines };
}

const sensor = (id: string) => ({ id, type: 'TempSensorMock', data: { setting: 20 } });

for (const rot of ['1O3', '', Buffer.from([0x31, 0xff, 0x33]), '7', 'NaN']) {
  t.test(`a rotten next_nid (${JSON.stringify(String(rot))}) is recomputed above the nids in use`, async (t) => {
    const dataDir = tempDir(t);
    let app = await startApp({}, { listen: false, dataDir });
    const nids: number[] = [];
    for (const id of ['a', 'b', 'c']) nids.push((await app.post('blocks/create', sensor(id))).body.nid);
    t.equal((await app.post('blocks/delete', { id: 'b' })).status, 200);
    await app.close();
    setRow(dataDir, 'next_nid', rot);

    const { log, lines } = logLines();
    app = await startApp({}, { listen: false, dataDir, log });
    t.teardown(app.close);
    const res = await app.post('blocks/create', sensor('d'));
    t.equal(res.status, 201, JSON.stringify(res.body));
    t.ok(res.body.nid > Math.max(...nids), `a new nid (${res.body.nid}), above every one in use (${nids})`);
    const again = await app.post('blocks/create', sensor('e'));
    t.equal(again.status, 201);
    t.equal(again.body.nid, res.body.nid + 1, 'and the ones after it follow');
    t.match(lines.join(''), /next_nid.*damaged/, 'a warning says the stored number was damaged');
  });
}

t.test('a rotten control_enabled keeps control on and raises the damaged alert until set again', async (t) => {
  const dataDir = tempDir(t);
  await (await startApp({}, { listen: false, dataDir })).close();
  setRow(dataDir, 'control_enabled', 'tr\u0075e\u0001');

  const { log, lines } = logLines();
  const config = path.join(dataDir, 'config.json');
  writeFileSync(config, JSON.stringify({ alerts: { checkIntervalMs: 100, rules: { resolveAfter: 0.5 } } }));
  const app = await startApp({ config }, { dataDir, log });
  t.teardown(app.close);
  const call = async (method: string, body?: unknown) => {
    const res = await fetch(`${app.base}/settings/enabled`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return res.json();
  };
  t.same(await call('GET'), { enabled: true }, 'control stays on: the fermenter is held');
  t.match(lines.join(''), /control_enabled.*damaged/, 'a warning in the log');
  const alert = async () => {
    for (let i = 0; i < 100; i++) {
      const found = (await app.post('system/status')).body.alerts.list.find(
        (a: { kind: string }) => a.kind === 'document-damaged',
      );
      if (found) return found as { text: string };
      await new Promise((r) => setTimeout(r, 100));
    }
    return undefined;
  };
  t.match((await alert())?.text, /control_enabled/, 'the damaged alert names the setting');
  t.same(await call('PUT', { enabled: true }), { enabled: true });
  let gone = false;
  for (let i = 0; i < 100 && !gone; i++) {
    gone = !(await app.post('system/status')).body.alerts.list.some(
      (a: { kind: string }) => a.kind === 'document-damaged',
    );
    if (!gone) await new Promise((r) => setTimeout(r, 100));
  }
  t.ok(gone, 'setting control again resolves it');
});
