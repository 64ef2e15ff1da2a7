// A datastore row whose bytes went bad inside a whole database (SQLite's checks pass; the JSON in
// it does not parse). The controller's own units document in that state made every start fail
// ("Unterminated string in JSON"), and any rotten document made reads of its namespace a 500.
// A rotten document is left out of reads and named in the log and system/status; the others are
// served, and the row stays until it is written again.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from '../../src/store/sqlite.js';
import { startApp } from '../helpers/app.js';

t.test('rotten documents are left out and named; the service starts and serves the rest', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-rot-docs-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  let app = await startApp({}, { listen: false, dataDir });
  for (const value of [
    { namespace: 'edge-one', id: 'units', temperature: 'degF' },
    { namespace: 'ui', id: 'dash', title: 'Fermenter' },
    { namespace: 'ui', id: 'dash2', title: 'Kettle' },
  ])
    t.equal((await app.post('/history/datastore/set', { value })).status, 200);
  await app.close();
  const db = new Database(path.join(dataDir, 'edgeblocks.db'));
  db.prepare("UPDATE documents SET value = substr(value, 1, 10) WHERE id IN ('units', 'dash')").run();
  db.close();

  // Started (listening), so its alerts run.
  app = await startApp({}, { dataDir });
  t.teardown(app.close);
  const { post } = app;
  const all = await post('/history/datastore/mget', { namespace: 'ui', filter: '*' });
  t.equal(all.status, 200, 'a read of the namespace is served');
  t.same(
    all.body.values.map((d: { id: string }) => d.id),
    ['dash2'],
    'the whole documents',
  );
  const one = await post('/history/datastore/get', { namespace: 'ui', id: 'dash' });
  t.equal(one.status, 200);
  t.equal(one.body.value, null, 'a rotten document reads as absent');
  t.equal((await post('blocks/backup/save')).status, 200, 'a backup can still be saved');
  // An alert says so, and that the units fell back to °C (bare numbers now mean °C).
  let alert: { text: string } | undefined;
  for (let i = 0; i < 100 && !alert; i++) {
    alert = (await post('system/status')).body.alerts.list.find((a: { kind: string }) => a.kind === 'document-damaged');
    if (!alert) await new Promise((r) => setTimeout(r, 100));
  }
  t.match(
    alert?.text,
    /stored documents? (is|are) damaged in the database \(.*edge-one:units.*\).*units document is one/,
  );
  const status = (await post('system/status')).body;
  t.same(
    status.rottenDocuments.map((r: { key: string }) => r.key).sort(),
    ['edge-one:units', 'ui:dash'],
    'status names them',
  );
  t.equal(
    (await post('/history/datastore/set', { value: { namespace: 'ui', id: 'dash', title: 'Again' } })).status,
    200,
  );
  t.equal((await post('/history/datastore/get', { namespace: 'ui', id: 'dash' })).body.value.title, 'Again');
  t.same(
    (await post('system/status')).body.rottenDocuments.map((r: { key: string }) => r.key),
    ['edge-one:units'],
    'written again, it is whole',
  );
});
