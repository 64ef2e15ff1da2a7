// A field asked for twice in one CSV export (a graph that has the same field on both axes, a
// script that builds its list) gets its header cell twice, as asked, and its values in both
// columns: `ranges` answers it twice too. The second column was empty on every line, as if the
// field had no points there.
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { parseCsv } from '../helpers/csv.js';
import { until } from '../helpers/until.js';

const FIELD = 'edge-one/SysInfo/uptime[second]';
const OTHER = 'edge-one/SysInfo/updatesPerSecond';

t.test('a field asked for twice has its values in both of its columns', async (t) => {
  const rt = await startApp({ emitInterval: '200' });
  t.teardown(() => rt.close());
  const query = { fields: [FIELD, OTHER, FIELD], duration: '1h' };
  await until(
    async () => {
      const ranges = await rt.post('/history/timeseries/ranges', query);
      return ranges.body.length === 3 && ranges.body.every((r: any) => r.values.length >= 2);
    },
    'two points of each field',
    30_000,
    200,
  );

  const res = await rt.post('/history/timeseries/csv', { ...query, precision: 'ms' });
  t.equal(res.status, 200, res.raw);
  const [header, ...rows] = parseCsv(res.raw);
  t.same(header, ['time', FIELD, OTHER, FIELD], 'the columns as asked');
  const withValue = rows.filter((r) => r[1] !== '');
  t.ok(withValue.length >= 2, 'lines with a value of the field');
  t.same(
    rows.filter((r) => r[3] !== r[1]),
    [],
    'the same value in both of its columns on every line',
  );
});
