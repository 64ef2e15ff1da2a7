import t from 'tap';
import { startApp } from '../helpers/app.js';
import { dataDirWithRules } from '../helpers/rules-data-dir.js';
import { logLines } from '../helpers/log-lines.js';

const later = {
  sensorNull: { enabled: false },
  outputOn: { after: 0, repeatEvery: 60 },
  futureRule: { enabled: true, after: 5 },
  blocks: { Heater: { onAfter: 7200, quietHours: [22, 6] } },
};
const UNKNOWN = ['futureRule', 'outputOn.repeatEvery', 'blocks.Heater.quietHours'];

t.test('rules a later release stored: known rules apply, unknown keys passed over and said once', async (t) => {
  const dir = dataDirWithRules(t, later);
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
  const dir = dataDirWithRules(t, { ...later, sensorNull: { enabled: 'no' } });
  const { app, close } = await startApp({}, { dataDir: dir, listen: false });
  t.teardown(close);
  const got = (await app.http.inject({ method: 'GET', url: '/edge-one/alerts/rules' })).json() as any;
  t.match(got.error, /not valid/, 'the document is refused');
  t.match(got.error, 'sensorNull.enabled', 'naming the value');
  t.equal(got.rules.sensorNull.enabled, true, 'the previous (default) rules apply');
});
