// CSV (formula) injection through the history export (OWASP "CSV Injection"): any client on the
// broker may publish history under a key of its choosing, and the key starts the field's name,
// which the export writes in its header. A key `=HYPERLINK("http://evil","x")` (or starting with
// +, - or @) made a header cell that Excel or LibreOffice runs as a formula when the user opens
// the export. A text cell starting with =, +, -, @, tab or carriage return is now written with a
// single quote before it (quoted as RFC 4180 asks); the numbers stay numbers, negative ones too.
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { parseCsv } from '../helpers/csv.js';
import { limit } from '../helpers/limits.js';
import { Recorder, sleep, topic, until } from '../mqtt/fixtures.js';

/** Keys another publisher sends history under, and the value of each one's field `v`. */
const KEYS: [string, number][] = [
  ['=HYPERLINK("http://evil","x")', -1.5],
  ["+1+cmd|' /C calc'!A0", 2],
  ['@SUM(1+1)', 3],
  ['-2+3', -4],
  ['fermenter', -0.25],
];

t.test('text cells of the CSV export that a spreadsheet would run as a formula start with a quote', async (t) => {
  const rt = await startApp({ mqttUrl: 'embedded' });
  t.teardown(() => rt.close());
  const { app } = rt;
  await until(() => app.mqtt.connected, 'the app to connect');
  const pub = await Recorder.connect(`mqtt://127.0.0.1:${app.mqtt.brokerPort}`);
  t.teardown(() => pub.end());

  const fields = KEYS.map(([key]) => `${key}/v`);
  let listed: string[] = [];
  const deadline = performance.now() + limit(15_000);
  while (!fields.every((f) => listed.includes(f))) {
    if (performance.now() > deadline) throw new Error(`fields not listed: ${JSON.stringify(listed)}`);
    for (const [key, v] of KEYS) await pub.publish(topic('history', 'other-one'), JSON.stringify({ key, data: { v } }));
    await sleep(200);
    await app.history!.store.flush();
    listed = (await rt.post('/history/timeseries/fields', { duration: '1h' })).body;
  }

  // Fields asked for need not exist: the header names them as asked, so tab and CR come this way
  // (a history key or field with a control character is refused at ingest).
  const asked = [...fields, '\tTab/v', '\rReturn/v'];
  const res = await rt.post('/history/timeseries/csv', { fields: asked, duration: '1h', precision: 'ms' });
  t.equal(res.status, 200, 'the export answers');
  const rows = parseCsv(res.raw);
  t.same(
    rows[0],
    [
      'time',
      `'=HYPERLINK("http://evil","x")/v`,
      "'+1+cmd|' /C calc'!A0/v",
      "'@SUM(1+1)/v",
      "'-2+3/v",
      'fermenter/v',
      "'\tTab/v",
      "'\rReturn/v",
    ],
    'each header cell that starts with =, +, -, @, tab or CR is prefixed with a single quote',
  );
  t.ok(
    res.raw.startsWith(`time,"'=HYPERLINK(""http://evil"",""x"")/v",'+1+cmd|' /C calc'!A0/v,'@SUM(1+1)/v,'-2+3/v,`),
    `the header is RFC 4180 text (quoted where it holds a comma or a quote): ${JSON.stringify(res.raw.split('\n')[0])}`,
  );

  // The values are numbers and stay numbers: -1.5 is not made text.
  const last = new Map<number, string>();
  for (const row of rows.slice(1))
    row.slice(1).forEach((cell, i) => {
      if (cell !== '') last.set(i, cell);
    });
  t.same(
    KEYS.map((_, i) => last.get(i)),
    KEYS.map(([, v]) => String(v)),
    'each value cell is the number as written, a negative one without a quote',
  );
  t.notOk(
    res.raw
      .split('\n')
      .slice(1)
      .some((l) => l.includes("'")),
    'no line of values holds a quote',
  );
});
