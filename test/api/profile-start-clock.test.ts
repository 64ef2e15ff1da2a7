// A SetpointProfile's `start` on a clock that was never set (1970: a Pi before network time, a
// script there writing its "now") put the profile 56 years in once NTP set the clock: it held its
// last temperature at once. REST and MQTT refuse it alike (the type's checkData), naming the
// problem; 0 is no start, as Brewblox sends it. docs/blocks.md, "Profiles and the clock".
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { controllerTopic, Recorder, SERVICE_ID, topic, until, untilSubscribed, VARIANTS } from '../mqtt/fixtures.js';

const [embedded] = VARIANTS;

t.test('REST and MQTT refuse a start before 2001; 0 is none', async (t) => {
  const bus = await embedded!.setup();
  const lines: any[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const rt = await startApp({ ...bus.overrides, emitInterval: '5000' }, { log: pino({ level: 'warn' }, sink) });
  t.teardown(() => rt.close());
  await until(() => rt.app.mqtt.connected, 'the runtime to connect');
  const created = await rt.post('blocks/create', {
    id: 'Profile',
    type: 'SetpointProfile',
    data: { enabled: true, points: [{ time: 0, 'temperature[degC]': 12 }] },
  });
  t.equal(created.status, 201);

  const refused = await rt.post('blocks/patch', {
    id: 'Profile',
    type: 'SetpointProfile',
    data: { start: '1970-01-01T00:20:00Z' },
  });
  t.equal(refused.status, 422, 'REST: a client error, not a 500');
  t.match(
    refused.body.message,
    /data\.start: 1970-01-01T00:20:00Z is before 2001-09-09: a time on a clock that was never set/,
    'naming the field and the problem',
  );
  const read = async () => (await rt.post('blocks/read', { id: 'Profile' })).body.data;
  t.equal((await read()).start, null, 'nothing stored');

  const sub = await Recorder.connect(bus.brokerUrl(rt.app));
  t.teardown(() => sub.end());
  await untilSubscribed(rt.app);
  await sub.subscribe(topic('patch'));
  const send = (data: object) =>
    sub.publish(
      controllerTopic('patch'),
      JSON.stringify({ id: 'Profile', serviceId: SERVICE_ID, type: 'SetpointProfile', data }),
    );
  await send({ start: 1200 });
  await send({ points: [{ time: 0, 'temperature[degC]': 13 }] }); // a marker after it
  await sub.waitFor((m) => m.json().data.changed.some((b: any) => b.id === 'Profile'), 'the patch of the marker', 5000);
  const after = await read();
  t.equal(after.start, null, 'MQTT: not stored either');
  t.equal(after.points[0].temperature.value, 13, 'the next message was applied');
  const dropped = lines.find((l) => /^mqtt blocks\/patch dropped/.test(l.msg));
  t.match(dropped?.reason, /before 2001-09-09: a time on a clock that was never set/, 'and logged with its reason');

  t.equal(
    (await rt.post('blocks/patch', { id: 'Profile', type: 'SetpointProfile', data: { start: 0 } })).status,
    200,
    '0 is taken',
  );
  t.equal((await read()).start, null, 'as no start');
  const now = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000', '');
  await rt.post('blocks/patch', { id: 'Profile', type: 'SetpointProfile', data: { start: now } });
  t.equal((await read()).start, now, 'a date on a set clock is taken');
});
