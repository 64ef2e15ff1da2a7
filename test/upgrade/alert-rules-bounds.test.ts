// Alert rules an older release stored, with values bounded since. The release of 2026-11-27 took
// remindHours 0.1 and any duration; 60d8ed1 bounded them (0.25-720 h, 30 days). After an upgrade the
// whole stored document was refused at start, so every rule the brewer set went back to its
// default without a word beyond a log line: the heater's 2-hour 'on too long' alert never came,
// and the sensor alerts they had turned off fired. The document is the one that release stored
// (test/fixtures/upgrade/alert-rules-2026-11-27.json).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { MAX_RULE_SECONDS, MIN_REMIND_HOURS } from '../../src/alerts/rules.js';
import { ROOT } from '../helpers/cli.js';
import { startApp } from '../helpers/app.js';
import { dataDirWithRules } from '../helpers/rules-data-dir.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/upgrade/alert-rules-2026-11-27.json');
const stored = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as { value: Record<string, unknown> }).value;

t.test(
  'rules stored by an older release keep applying, values out of the new bounds brought within them',
  async (t) => {
    const dir = dataDirWithRules(t, stored);

    const { app, close } = await startApp({}, { dataDir: dir, listen: false });
    try {
      const res = await app.http.inject({ method: 'GET', url: '/edge-one/alerts/rules' });
      t.equal(res.statusCode, 200);
      const { rules, error } = res.json() as { rules: any; error: string | null };
      t.equal(rules.sensorNull.enabled, false, 'the sensor rule the brewer turned off stays off');
      t.same(rules.blocks.Heater, { onAfter: 7200 }, "the heater's 2-hour rule applies");
      t.same(rules.blocks['Fridge Sensor'], { enabled: false });
      t.equal(rules.remindHours, MIN_REMIND_HOURS, 'a reminder interval under the bound is the shortest one taken');
      t.same(rules.blocks.Cooler, { onAfter: MAX_RULE_SECONDS }, 'a duration over it the longest');
      t.match(error, /remindHours/, 'what was changed is said');
      t.match(error, /used at the nearest bound/, 'as brought within the bounds');
      t.notMatch(error, /not valid/, 'not as a document refused (the dashboard shows this text as it is)');
      t.match(error, /blocks\.Cooler\.onAfter/);

      // New input is still held to the bounds.
      const put = await app.http.inject({
        method: 'PUT',
        url: '/edge-one/alerts/rules',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ remindHours: 0.1 }),
      });
      t.equal(put.statusCode, 422, put.body);
    } finally {
      await close();
    }
  },
);

t.test('the rules the brewer reads after such an upgrade can be saved again with one change', async (t) => {
  // The dashboard's form (web/src/Alerts.tsx) PUTs the stored document with the fields it shows
  // changed; a value out of today's bounds that it does not show (a block that is not an output
  // now, outputOn, resolveAfter, service) went back as stored and the save was refused, naming a
  // value the brewer never typed and cannot change there.
  const dir = dataDirWithRules(t, { ...stored, outputOn: { after: 3_000_000 } });
  const { app, close } = await startApp({}, { dataDir: dir, listen: false });
  try {
    const got = (await app.http.inject({ method: 'GET', url: '/edge-one/alerts/rules' })).json() as {
      document: Record<string, unknown>;
      error: string | null;
    };
    t.match(got.error, /outputOn\.after/, 'what was brought within the bounds is still said');
    const put = await app.http.inject({
      method: 'PUT',
      url: '/edge-one/alerts/rules',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ ...got.document, remindHours: 2 }),
    });
    t.equal(put.statusCode, 200, `the document as read, one rule changed, is taken (${put.body.slice(0, 200)})`);
    const after = (await app.http.inject({ method: 'GET', url: '/edge-one/alerts/rules' })).json() as {
      rules: { remindHours: number; outputOn: { after: number } };
    };
    t.equal(after.rules.remindHours, 2);
    t.equal(after.rules.outputOn.after, MAX_RULE_SECONDS);
  } finally {
    await close();
  }
});
