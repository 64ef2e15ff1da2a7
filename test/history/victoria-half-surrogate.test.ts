// A history query naming a field with half of a surrogate pair ("\ud800", an emoji a client cut
// in two). No stored field has one (history leaves such names out when it stores), but with
// VictoriaMetrics as the store the query was sent on as a URL form, whose encoding cannot spell
// it (encodeURIComponent throws): a 500 "internal error" for a field name in a JSON body. The
// route's schema refuses it now with 422 naming the field, for every store.
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { startVictoria } from '../helpers/victoria.js';

t.test('a queried field name with half of a surrogate pair is a 422 naming it, not a 500', async (t) => {
  const vm = await startVictoria();
  t.teardown(() => vm.stop());
  const rt = await startApp({ historyUrl: vm.url });
  t.teardown(() => rt.close());
  for (const route of ['metrics', 'ranges', 'csv']) {
    const fields = ['edge-one/ok', 'cut \ud83c'];
    const res = await rt.post(
      `/history/timeseries/${route}`,
      route === 'csv' ? { fields, precision: 'ms' } : { fields },
    );
    t.equal(res.status, 422, `${route}: ${res.raw.slice(0, 300)}`);
    t.match(res.body?.message, /fields\.1: .*half of a surrogate pair/, route);
  }
  const whole = await rt.post('/history/timeseries/metrics', { fields: ['edge-one/🍺/value'] });
  t.equal(whole.status, 200, 'a whole emoji is a name like any other');
});
