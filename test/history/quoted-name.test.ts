// Issue 44, first bullet: a block named `Brew "Kettle"` is accepted by the API, and its history
// (and every other block's: the message is one per controller) must keep flowing, with the
// status telling the truth. Before the fix the whole message was refused once per cycle
// ("field holds a quote"), Beer Sensor's history stopped too, and `history.ok` stayed true.
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { SERVICE_ID, sleep, until } from '../mqtt/fixtures.js';

const INTERVAL = 200;

t.test('a block named Brew "Kettle" keeps every history field flowing', async (t) => {
  const rt = await startApp({ emitInterval: String(INTERVAL) });
  t.teardown(() => rt.close());
  await until(() => rt.app.mqtt.connected, 'the app to connect');
  const sensors = { 'Beer Sensor': 19.25, 'Brew "Kettle"': 66.5 };
  for (const [id, setting] of Object.entries(sensors))
    t.equal(
      (await rt.post('blocks/create', { id, type: 'TempSensorMock', data: { setting, connected: true } })).status,
      201,
      `${id} is accepted`,
    );
  const fields = Object.keys(sensors).map((id) => `${SERVICE_ID}/${id}/value[degC]`);
  // Several cycles after both exist: each field's newest point is one written after the create.
  const created = Date.now();
  await sleep(INTERVAL * 5);
  const metrics = (await rt.post('/history/timeseries/metrics', { fields })).body as {
    metric: string;
    value: number;
    timestamp: string;
  }[];
  for (const [id, setting] of Object.entries(sensors)) {
    const m = metrics.find((x) => x.metric === `${SERVICE_ID}/${id}/value[degC]`);
    t.equal(m?.value, setting, `${id}'s value is stored`);
    t.ok(m && Date.parse(m.timestamp) > created, `${id}'s newest point came after the create`);
  }
  const history = rt.app.status().history as { ok: boolean; ingest: { dropped: number } };
  t.equal(history.ok, true, 'history is ok');
  t.equal(history.ingest.dropped, 0, 'no history message was dropped');
});
