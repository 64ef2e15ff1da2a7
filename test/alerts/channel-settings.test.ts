// Issue 47 item 5 (the API side): channels set up over REST with the same schema as the config
// file, stored in the data dir (they survive kill -9), secrets write-only (left out = kept,
// null = removed, never served), the config file's channels read-only, 422 naming the field
// for bad input with nothing changed, and a removed channel's waiting messages dropped.
import t from 'tap';
import { getJson } from './http.js';
import { postJson } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { HttpReceiver, startSmtp, until } from './receivers.js';
import { beerSensor, plug, startService, writeConfig } from './sim-service.js';

const FILE_SECRET = 'file-hook-s3cret';
const TOKEN = 'tk_dash_s3cret';
const SMTP_PASSWORD = 'smtp-dash-s3cret';
const TOPIC = '/ntfy/dash-topic-s3cret';

async function send(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

t.test('channels set up over REST: schema, write-only secrets, read-only file channels, persistence', async (t) => {
  const http = new HttpReceiver();
  await http.start();
  t.teardown(() => http.stop());
  const smtp = await startSmtp('brewer', SMTP_PASSWORD);
  t.teardown(() => smtp.close());
  const cfg = writeConfig({
    webhook: { url: http.url('/hook'), headers: { 'X-Gotify-Key': FILE_SECRET } },
    retryBaseMs: 200,
    retryMaxMs: 1000,
    checkIntervalMs: 200,
    rules: { sensorNull: { after: 1 } },
  });
  let svc = await startService(cfg, t);
  const channels = async () => (await getJson(`${svc.api}/alerts/channels`)).channels as any[];
  const view = async (name: string) => (await channels()).find((c) => c.name === name);

  const listed = await channels();
  t.same(listed.map((c) => c.name).sort(), ['email', 'heartbeat', 'ntfy', 'webhook'], 'every kind is listed');
  const hook = listed.find((c) => c.name === 'webhook');
  t.equal(hook.source, 'config', 'the webhook comes from the config file');
  t.same(hook.secrets, { url: { set: true, host: `http://127.0.0.1:${http.port}` }, headers: { set: true } });
  t.equal(hook.schema.properties.url['x-secret'], true, 'the schema marks the secrets');

  const conflict = await send('PUT', `${svc.api}/alerts/channels/webhook`, { url: http.url('/other') });
  t.equal(conflict.status, 409, "the config file's channel cannot be replaced from the API");
  t.match(conflict.body.message, /config file/);
  t.equal((await send('DELETE', `${svc.api}/alerts/channels/webhook`)).status, 409, 'nor removed');

  // Set up ntfy; its test reaches the receiver with the token.
  const saved = await send('PUT', `${svc.api}/alerts/channels/ntfy`, { url: http.url(TOPIC), token: TOKEN });
  t.equal(saved.status, 200, JSON.stringify(saved.body));
  t.equal(saved.body.channel.source, 'dashboard');
  t.same(saved.body.channel.secrets, {
    url: { set: true, host: `http://127.0.0.1:${http.port}` },
    token: { set: true },
  });
  const tested = await postJson(`${svc.api}/alerts/test?channel=ntfy`);
  t.same(
    tested.body.channels.map((c: any) => [c.channel, c.ok]),
    [['ntfy', true]],
    'the test goes to the one channel asked for',
  );
  const got = http.got.filter((r) => r.path === TOPIC);
  t.equal(got.length, 1, 'the ntfy receiver got the test');
  t.equal(got[0]!.headers.authorization, `Bearer ${TOKEN}`);
  t.equal(http.got.filter((r) => r.path === '/hook').length, 0, 'and no other channel did');

  // Bad input: 422 naming the field; the stored channel is unchanged.
  for (const [body, field] of [
    [{ url: 'ftp://nope' }, 'url'],
    [{ url: http.url(TOPIC), tokn: 'x' }, 'tokn'],
    [{ token: 5 }, 'token'],
  ] as const) {
    const bad = await send('PUT', `${svc.api}/alerts/channels/ntfy`, body);
    t.equal(bad.status, 422, `${JSON.stringify(body)} is refused`);
    t.match(JSON.stringify(bad.body), field, `naming ${field}`);
  }
  const unknown = await send('PUT', `${svc.api}/alerts/channels/nope`, {});
  t.equal(unknown.status, 404, 'an unknown kind has no route');

  // Email: set up, then edited without its password (kept), then without its user (removed).
  const email = {
    host: '127.0.0.1',
    port: smtp.port,
    user: 'brewer',
    password: SMTP_PASSWORD,
    from: 'brewery@example.com',
    to: 'me@example.com',
  };
  t.equal((await send('PUT', `${svc.api}/alerts/channels/email`, email)).status, 200);
  const { password: _kept, ...withoutPassword } = email;
  const edited = await send('PUT', `${svc.api}/alerts/channels/email`, {
    ...withoutPassword,
    to: ['me@example.com', 'you@example.com'],
  });
  t.equal(edited.status, 200);
  t.same(edited.body.channel.settings.to, ['me@example.com', 'you@example.com'], 'the edit is in force');
  t.same(edited.body.channel.secrets, { password: { set: true } }, 'the password left out is kept');
  const mailTest = await postJson(`${svc.api}/alerts/test?channel=email`);
  t.equal(
    mailTest.body.channels[0].ok,
    true,
    `the mail went out with the kept password: ${mailTest.body.channels[0].answer}`,
  );
  await until('the test mail', limit(5000), () => smtp.mails.length > 0);
  t.equal(smtp.mails[0]!.user, 'brewer');
  const cleared = await send('PUT', `${svc.api}/alerts/channels/email`, { ...withoutPassword, password: null });
  t.same(cleared.body.channel.secrets, { password: { set: false } }, 'null removes a secret');
  t.equal((await send('PUT', `${svc.api}/alerts/channels/email`, email)).status, 200);

  // Every answer the service gives holds none of the secrets.
  const answers = [
    await getJson(`${svc.api}/alerts/channels`),
    await getJson(`${svc.api}/alerts`),
    await getJson(`${svc.api}/system/status`),
    await getJson(`${svc.api}/alerts/rules`),
    tested.body,
    saved.body,
    edited.body,
  ];
  for (const secret of [FILE_SECRET, TOKEN, SMTP_PASSWORD, TOPIC]) {
    t.notOk(JSON.stringify(answers).includes(secret), `no answer holds ${secret}`);
    t.notOk(svc.output().includes(secret), `the log does not hold ${secret}`);
  }

  // kill -9 and start again: the channels set up here are still in force.
  svc.child.kill('SIGKILL');
  await svc.exited;
  svc = await startService(cfg, t);
  t.equal((await view('ntfy')).source, 'dashboard', 'ntfy survives a kill -9');
  t.equal((await view('email')).source, 'dashboard', 'email too');
  const restarted = Date.now();
  const after = await postJson(`${svc.api}/alerts/test?channel=ntfy`);
  t.equal(after.body.channels[0].ok, true, 'and works after the restart');
  t.ok(
    http.got.some((r) => r.path === TOPIC && r.at >= restarted && /Test message/.test(String(r.headers.title))),
    'the test reached the ntfy receiver',
  );

  // A message waiting for a channel that is removed is dropped, not kept forever.
  await beerSensor(svc.api, limit(15000));
  const port = http.port;
  await http.stop();
  await plug(svc.api, false);
  // The failure can take the send's own time limit: a connection kept alive to the stopped
  // receiver hangs until it runs out.
  await until('an alert waiting for ntfy', limit(30000), async () =>
    (await getJson(`${svc.api}/alerts`)).history.some((h: any) => h.event === 'failed' && h.channel === 'ntfy'),
  );
  t.equal((await send('DELETE', `${svc.api}/alerts/channels/ntfy`)).status, 200, 'ntfy removed');
  await until('the waiting message dropped', limit(5000), async () =>
    (await getJson(`${svc.api}/alerts`)).history.some(
      (h: any) => h.event === 'dropped' && h.channel === 'ntfy' && /no longer configured/.test(h.text),
    ),
  );
  t.equal((await view('ntfy')).source, null, 'it is no longer set up');
  const gone = await postJson(`${svc.api}/alerts/test?channel=ntfy`);
  t.equal(gone.status, 404, 'its test is a 404 naming it');
  t.match(gone.body.message, /no ntfy channel/);
  t.equal((await send('DELETE', `${svc.api}/alerts/channels/ntfy`)).status, 404, 'removing it again is a 404');
  await http.start(port);
});

t.test('a stored channel that no longer passes its schema is reported and not used', async (t) => {
  const Database = (await import('better-sqlite3')).default;
  const cfg = writeConfig({});
  let svc = await startService(cfg, t);
  t.equal((await send('PUT', `${svc.api}/alerts/channels/heartbeat`, { url: 'http://127.0.0.1:9/hb' })).status, 200);
  svc.child.kill('SIGKILL');
  await svc.exited;
  const db = new Database(`${cfg.dataDir}/edgeblocks.db`);
  db.prepare("UPDATE settings SET value = ? WHERE key = 'alert-channel:heartbeat'").run(
    JSON.stringify({ url: 'http://127.0.0.1:9/hb', intervalSeconds: -5 }),
  );
  db.close();
  svc = await startService(cfg, t);
  const hb = (await getJson(`${svc.api}/alerts/channels`)).channels.find((c: any) => c.name === 'heartbeat');
  t.equal(hb.source, null, 'not in force');
  t.match(hb.error, /intervalSeconds/, 'the problem is named');
  t.match(svc.output(), /stored alert channel is not valid/, 'and logged');
});
