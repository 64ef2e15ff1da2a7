// Issue 26: a pulled probe reaches every channel (ntfy, webhook, email, MQTT on a real
// Mosquitto) within the set time plus one emission interval, and its resolve follows; the
// test route answers per channel; the heartbeat is called; no secret is served or logged.
// tags: slow (the built service and every channel, a real Mosquitto)
import t from 'tap';
import mqtt from 'mqtt';
import { getJson } from './http.js';
import { postJson } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { HttpReceiver, startSmtp, until } from './receivers.js';
import { beerSensor, plug, startService, writeConfig } from './sim-service.js';

const AFTER_S = 2;
const EMIT_MS = 1000;
// The sim's sensor reads null 2 s after its last fresh reading (DESIGN §7).
const STALE_MS = 2000;
const SECRETS = ['ntfy-token-s3cret', 'smtp-pass-s3cret', 'hook-key-s3cret'];

t.test('a pulled probe alerts on every channel and resolves when plugged back', async (t) => {
  const http = new HttpReceiver();
  await http.start();
  t.teardown(() => http.stop());
  const smtp = await startSmtp('brewer', SECRETS[1]!);
  t.teardown(() => smtp.close());
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const cfg = writeConfig(
    {
      ntfy: { url: http.url('/ntfy/brewery'), token: SECRETS[0] },
      webhook: { url: http.url('/hook'), headers: { 'X-Gotify-Key': SECRETS[2] } },
      email: {
        host: '127.0.0.1',
        port: smtp.port,
        user: 'brewer',
        password: SECRETS[1],
        from: 'brewery@example.com',
        to: 'me@example.com',
      },
      heartbeat: { url: http.url('/hb'), intervalSeconds: 1 },
      checkIntervalMs: 200,
      retryBaseMs: 200,
      retryMaxMs: 1000,
      rules: { sensorNull: { after: AFTER_S }, resolveAfter: 1 },
    },
    { mqttUrl: broker.url, emitInterval: EMIT_MS },
  );
  const svc = await startService(cfg, t);
  const sensor = await beerSensor(svc.api, limit(15000));

  const sub = mqtt.connect(broker.url);
  t.teardown(() => sub.end(true));
  const lists: any[] = [];
  sub.on('message', (_topic, payload) => lists.push(JSON.parse(payload.toString())));
  await new Promise<void>((resolve) => sub.on('connect', () => sub.subscribe('svc/alerts/edge-one', () => resolve())));

  const key = `sensor-null:${sensor.nid}`;
  const unplugged = Date.now();
  await plug(svc.api, false);
  const within = limit(AFTER_S * 1000 + STALE_MS + EMIT_MS + 1000);
  const fired = (m: any) => m.key === key && m.event === 'fired';
  const hook = await until('webhook alert', within, () => http.json('/hook').find(fired));
  const ntfy = await until('ntfy alert', within, () =>
    http.got.find((r) => r.path === '/ntfy/brewery' && r.headers['x-edgeblocks-id'] === hook.id),
  );
  const mail = await until('email alert', within, () => smtp.mails.find((m) => m.raw.includes(hook.id)));
  const listed = await until('MQTT alert list', within, () =>
    lists.find((l) => l.active.some((a: any) => a.key === key)),
  );
  const elapsed = Date.now() - unplugged;
  t.ok(elapsed <= within, `every channel had the alert ${elapsed} ms after the unplug (limit ${within})`);

  t.equal(hook.blockId, sensor.id, 'the webhook names the block');
  t.match(hook.message, sensor.id, 'the message names the block');
  t.equal(hook.condition, 'sensor-null');
  t.equal(ntfy.headers.authorization, `Bearer ${SECRETS[0]}`, 'ntfy gets the token');
  t.match(String(ntfy.headers.title), 'Sensor not reading', 'ntfy title from the alert');
  t.equal(ntfy.headers.priority, '4');
  t.match(String(ntfy.headers.tags), 'warning');
  t.equal(http.got.find((r) => r.path === '/hook')!.headers['x-gotify-key'], SECRETS[2], 'webhook headers are sent');
  t.equal(mail.user, 'brewer', 'the mail came with the SMTP login');
  t.match(mail.raw, `Message-ID: <${hook.id}@edgeblocks>`);
  t.equal(listed.active.find((a: any) => a.key === key).blockId, sensor.id);

  await plug(svc.api, true);
  const resolved = (m: any) => m.key === key && m.event === 'resolved';
  const resolveLimit = limit(STALE_MS + 1000 + EMIT_MS + 3000);
  const hookResolved = await until('webhook resolve', resolveLimit, () => http.json('/hook').find(resolved));
  await until('ntfy resolve', resolveLimit, () =>
    http.got.find((r) => r.headers['x-edgeblocks-id'] === hookResolved.id),
  );
  await until('email resolve', resolveLimit, () => smtp.mails.find((m) => m.raw.includes(hookResolved.id)));
  await until(
    'MQTT list empty again',
    resolveLimit,
    () => lists.length > 0 && lists[lists.length - 1].active.length === 0,
  );
  t.equal(http.json('/hook').filter(fired).length, 1, 'fired once');
  t.equal(http.json('/hook').filter(resolved).length, 1, 'resolved once');

  const test = await postJson(`${svc.api}/alerts/test`);
  t.equal(test.status, 200);
  t.same(
    test.body.channels.map((c: any) => [c.channel, c.ok]).sort(),
    [
      ['email', true],
      ['ntfy', true],
      ['webhook', true],
    ],
    'the test message reached each channel',
  );

  const alerts = await getJson(`${svc.api}/alerts`);
  const events = alerts.history.map((h: any) => `${h.event}:${h.key}:${h.channel ?? ''}`);
  for (const e of ['fired', 'resolved']) t.ok(events.includes(`${e}:${key}:`), `history has ${e}`);
  for (const c of ['ntfy', 'webhook', 'email'])
    t.ok(events.includes(`delivered:${key}:${c}`), `history has the delivery to ${c}`);
  t.ok(http.got.filter((r) => r.path === '/hb').length >= 2, 'the heartbeat URL is called while control runs');

  const status = await getJson(`${svc.api}/system/status`);
  const rules = await getJson(`${svc.api}/alerts/rules`);
  for (const secret of SECRETS) {
    t.notOk(JSON.stringify(alerts).includes(secret), 'GET /alerts holds no secret');
    t.notOk(JSON.stringify(status).includes(secret), 'system/status holds no secret');
    t.notOk(JSON.stringify(rules).includes(secret), 'alerts/rules holds no secret');
    t.notOk(svc.output().includes(secret), 'the log holds no secret');
  }
  await svc.waitFor(/alert fired: .*Sensor not reading/, 'the log line for the alert');
  t.equal(svc.output().match(/alert fired: .*Sensor not reading/g)?.length, 1, 'one log line for the alert');
});
