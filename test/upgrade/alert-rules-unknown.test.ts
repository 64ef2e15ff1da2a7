// Alert rules a later release stored, read after a rollback. A rules document holding a key this
// release does not know (a rule, a rule's field or a block's setting added since) was refused
// whole, so every rule ran at its default: a heater's 2-hour "on too long" alert silently off.
// The stored document is now read leniently: every known rule applies, the unknown keys are passed
// over with one warning naming them (logged, and in the rules' error, which GET /alerts, GET
// /alerts/rules and the dashboard's Alerts page show), and they stay in the document when the
// rules are saved (going forward again finds them). A client's PUT is still held to the schema: an
// unknown key is refused naming it, and a stored value of a known key that is not valid is still
// refused as before.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { openDatabase } from '../../src/store/db.js';
import { startApp } from '../helpers/app.js';
import { logLines } from '../helpers/log-lines.js';

function dataDirWith(t: Test, rules: Record<string, unknown>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-rules-unknown-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(dir);
  db.prepare('INSERT INTO documents (namespace, id, value) VALUES (?, ?, ?)').run(
    'edge-one',
    'alerts',
    JSON.stringify(rules),
  );
  db.close();
  return dir;
}

const later = {
  sensorNull: { enabled: false },
  outputOn: { after: 0, repeatEvery: 60 },
  futureRule: { enabled: true, after: 5 },
  blocks: { Heater: { onAfter: 7200, quietHours: [22, 6] } },
};
const UNKNOWN = ['futureRule', 'outputOn.repeatEvery', 'blocks.Heater.quietHours'];

t.test('rules a later release stored: known rules apply, unknown keys passed over and said once', async (t) => {
  const dir = dataDirWith(t, later);
  const { log, lines } = logLines('warn');
  const { app, close } = await startApp({}, { dataDir: dir, listen: false, log });
  t.teardown(close);
  const get = async (url: string) => (await app.http.inject({ method: 'GET', url })).json() as any;
  const put = (body: unknown) =>
    app.http.inject({
      method: 'PUT',
      url: '/edge-one/alerts/rules',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });

  const got = await get('/edge-one/alerts/rules');
  t.equal(got.rules.sensorNull.enabled, false, 'the sensor rule the brewer turned off stays off');
  t.same(got.rules.blocks.Heater, { onAfter: 7200 }, "the heater's 2-hour rule applies");
  for (const key of UNKNOWN) t.match(got.error, key, `the rules' error names ${key}`);
  t.notMatch(got.error, /not valid/, 'not as a document refused');
  t.match((await get('/edge-one/alerts')).rulesError, 'futureRule', 'GET /alerts says it too');
  const said = lines.filter((l) => UNKNOWN.every((k) => JSON.stringify(l).includes(k)));
  t.equal(said.length, 1, 'one log line names them all');
  t.notOk('futureRule' in got.document, 'the document answered is what this release takes back');

  // The dashboard's form: the document as read, one field changed.
  const saved = await put({ ...got.document, remindHours: 2 });
  t.equal(saved.statusCode, 200, saved.body);
  const stored = app.documents.get('edge-one', 'alerts') as any;
  t.same(stored.futureRule, later.futureRule, 'a save keeps the later release’s rule');
  t.equal(stored.outputOn.repeatEvery, 60, "and a rule's field it added");
  t.same(stored.blocks.Heater, later.blocks.Heater, "and a block's setting it added");
  t.equal(stored.remindHours, 2, 'with the change');
  t.equal(
    lines.filter((l) => JSON.stringify(l).includes('futureRule')).length,
    1,
    'the load after the save says nothing new in the log',
  );

  const typo = await put({ ...got.document, sensorNul: { after: 5 } });
  t.equal(typo.statusCode, 422, 'a client sending a key this release does not know is refused');
  t.match(typo.body, 'sensorNul', 'naming it');
  t.equal((app.documents.get('edge-one', 'alerts') as any).sensorNul, undefined, 'nothing stored');
});

t.test('a known key with a value that is not valid is still refused, unknown keys or not', async (t) => {
  const dir = dataDirWith(t, { ...later, sensorNull: { enabled: 'no' } });
  const { app, close } = await startApp({}, { dataDir: dir, listen: false });
  t.teardown(close);
  const got = (await app.http.inject({ method: 'GET', url: '/edge-one/alerts/rules' })).json() as any;
  t.match(got.error, /not valid/, 'the document is refused');
  t.match(got.error, 'sensorNull.enabled', 'naming the value');
  t.equal(got.rules.sensorNull.enabled, true, 'the previous (default) rules apply');
});
