// A setpoint that has no setting where a Setpoint Profile meets the alerts: the profile lets go
// (deleted here; every path to it is test/control/profile-let-go.test.ts), the setpoint keeps
// settingMode CLAIMED with no setting until the brewer gives one, and the PIDs on it do nothing.
// That is an alert after the rule's time (5 min by default: a hand-over by hand is no alert),
// naming the setpoint and its PIDs by their names (user text: quotes, HTML, emoji) on the API and
// the webhook, ntfy and email channels; it resolves when a setting is given, and ends as "No longer
// watched" (not "Back to normal") when the setpoint is disabled or no enabled PID reads it any more
// (deleted, disabled, set to read another setpoint).
// A restart is no event: with a setting nothing fires, with none it fires after the time, once.
// The app over REST (real SQLite) on a manual clock; the channels are real HTTP receivers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { HARD_NAMES } from '../helpers/names.js';
import { limit } from '../helpers/limits.js';
import { simApp, type SimApp } from '../hardware/sim-app.js';
import { HttpReceiver, type Mail, startSmtp, until } from './receivers.js';

const WALL = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const MINUTE = 60_000;
const link = (id: string) => ({ __objtype: 'Link', id });
const degC = (value: number) => ({ __objtype: 'Quantity', unit: 'degC', value });

const SETPOINT = HARD_NAMES.find((n) => n.includes('<script>'))!;
const HEAT = 'Brew "Kettle"';
const COOL = HARD_NAMES.find((n) => n.startsWith('🍺 '))!;
const KIND = 'setpoint-no-setting';

/** A mail's subject and text as a mail reader shows them (RFC 2047 encoded words, quoted-printable or base64). */
function readMail(m: Mail): { subject: string; text: string } {
  const at = m.raw.indexOf('\r\n\r\n');
  const head = m.raw.slice(0, at).replace(/\r\n[ \t]+/g, ' ');
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1] ?? '';
  const words = (v: string) =>
    v.replace(/\?=\s+=\?/g, '?==?').replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_all, enc: string, data: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64').toString('utf8')
        : Buffer.from(
            data
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_x, h: string) => String.fromCharCode(parseInt(h, 16))),
            'latin1',
          ).toString('utf8'),
    );
  const body = m.raw.slice(at + 4).replace(/\r\n\.\r\n$/, '');
  const cte = header('Content-Transfer-Encoding').toLowerCase();
  const text =
    cte === 'base64'
      ? Buffer.from(body, 'base64').toString('utf8')
      : cte === 'quoted-printable'
        ? Buffer.from(
            body
              .replace(/=\r\n/g, '')
              .replace(/=([0-9A-F]{2})/gi, (_x, h: string) => String.fromCharCode(parseInt(h, 16))),
            'latin1',
          ).toString('utf8')
        : body;
  return { subject: words(header('Subject')), text: text.replace(/\r\n/g, '\n') };
}

interface Rig {
  readonly s: SimApp;
  restart(): Promise<SimApp>;
}

/** A setpoint a profile drives (10 degC now), a heating and a cooling PID on it. */
async function fermenter(t: Test, hooks?: HttpReceiver, smtpPort?: number): Promise<Rig> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-no-setting-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  // The app's alerts as the service starts them (simApp starts no subsystem): evaluated after each tick, channels sending.
  const open = async () => {
    const app = await simApp({ dataDir, start: 1000 });
    app.app.alerts.start();
    // A check before the first tick, as the fallback timer makes one when none comes (control
    // disabled, a loop not started yet): the blocks are loaded, none has run.
    app.app.alerts.evaluate();
    return app;
  };
  let s = await open();
  t.teardown(() => s.close());
  const create = async (body: unknown) => t.equal((await s.post('blocks/create', body)).status, 201);
  await create({ id: 'Sensor', type: 'TempSensorMock', data: { setting: degC(12) } });
  await create({
    id: SETPOINT,
    type: 'SetpointSensorPair',
    data: { enabled: true, sensorId: link('Sensor'), storedSetting: degC(20), filter: 'FILTER_NONE' },
  });
  for (const [pid, out, kp] of [
    [HEAT, 'Heater', 10],
    [COOL, 'Cooler', -10],
  ] as const) {
    await create({ id: out, type: 'ActuatorAnalogMock', data: {} });
    await create({ id: pid, type: 'Pid', data: { enabled: true, inputId: link(SETPOINT), outputId: link(out), kp } });
  }
  await create({
    id: 'Profile',
    type: 'SetpointProfile',
    data: {
      enabled: true,
      targetId: link(SETPOINT),
      start: new Date(WALL - HOUR).toISOString(),
      points: [
        { time: 0, temperature: degC(15) },
        { time: 7200, temperature: degC(5) },
      ],
    },
  });
  if (hooks) {
    for (const [kind, url] of [
      ['webhook', hooks.url('/hook')],
      ['ntfy', hooks.url('/ntfy/brewery')],
    ])
      t.equal((await put(s, `alerts/channels/${kind}`, { url })).statusCode, 200, `${kind} set up`);
  }
  if (smtpPort) {
    const email = {
      host: '127.0.0.1',
      port: smtpPort,
      user: 'brewer',
      password: 'pw',
      from: 'b@x.test',
      to: 'me@x.test',
    };
    t.equal((await put(s, 'alerts/channels/email', email)).statusCode, 200, 'email set up');
  }
  await s.run(3000);
  t.equal(s.data(SETPOINT).claimedBy?.id, 'Profile', 'the profile drives the setpoint');
  return {
    get s() {
      return s;
    },
    async restart() {
      await s.close();
      s = await open();
      await s.run(3000);
      return s;
    },
  };
}

const put = (s: SimApp, route: string, body: unknown) =>
  s.app.http.inject({
    method: 'PUT',
    url: `/${s.app.config.serviceId}/${route}`,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

async function alerts(s: SimApp): Promise<{ active: any[]; history: any[] }> {
  const res = await s.get('alerts');
  if (res.status !== 200) throw new Error(`GET alerts: ${res.status}`);
  return res.body;
}
const noSetting = async (s: SimApp) => (await alerts(s)).active.filter((a) => a.kind === KIND);
const events = async (s: SimApp, event: string) =>
  (await alerts(s)).history.filter((h) => h.event === event && String(h.key).startsWith(`${KIND}:`));

t.test(
  'a profile deleted: no alert for a hand-over, one after the rule time naming the setpoint and its PIDs; a setting given resolves it',
  async (t) => {
    const hooks = new HttpReceiver();
    await hooks.start();
    t.teardown(() => hooks.stop());
    const smtp = await startSmtp('brewer', 'pw');
    t.teardown(() => smtp.close());
    const f = await fermenter(t, hooks, smtp.port);
    const s = f.s;
    const rules = (await s.get('alerts/rules')).body.rules;
    t.same(rules.noSetting, { enabled: true, after: 300 }, 'a rule of its own, on, 5 min by default');

    t.equal((await s.post('blocks/delete', { id: 'Profile' })).status, 200, 'the profile deleted');
    await s.run(2 * MINUTE, 1000);
    t.equal(s.data(SETPOINT).setting.value, null, 'the setpoint has no setting');
    t.same(await noSetting(s), [], 'two minutes on (a brewer on the way to set it): no alert');

    await s.run(4 * MINUTE, 1000);
    const [alert] = await noSetting(s);
    t.ok(alert, 'past the rule time: the alert');
    t.equal(alert.blockId, SETPOINT, 'its block is the setpoint, by its name');
    t.equal(
      alert.text,
      `${SETPOINT} has no setting: the PIDs on it (${HEAT}, ${COOL}) are not controlling. Give it a setting to take over`,
      'the text names the setpoint and both PIDs as they were typed',
    );
    t.equal((await events(s, 'fired')).length, 1, 'fired once');

    const fired = await until('the webhook message', limit(10_000), () =>
      hooks.json('/hook').find((m) => m.event === 'fired' && m.condition === KIND),
    );
    t.equal(fired.blockId, SETPOINT, 'the webhook names the block as typed');
    t.match(fired.title, SETPOINT);
    t.equal(fired.message, `${alert.text}.`, 'the webhook carries the text intact');
    const ntfy = await until('the ntfy message', limit(10_000), () =>
      hooks.got.find((r) => r.path === '/ntfy/brewery' && r.body.includes('has no setting')),
    );
    t.equal(ntfy.body, `${alert.text}.`, 'ntfy carries the text intact');
    const mail = await until('the email', limit(10_000), () =>
      smtp.mails.map(readMail).find((m) => m.text.includes('has no setting')),
    );
    t.equal(mail.subject, fired.title, 'the email subject names the setpoint as typed');
    t.ok(mail.text.startsWith(`${alert.text}.\n`), `the email carries the text intact (${JSON.stringify(mail.text)})`);

    // A setting given by hand (as the dashboard's field and Home Assistant's number do): it takes over.
    const given = await s.post('blocks/patch', {
      id: SETPOINT,
      type: 'SetpointSensorPair',
      data: { storedSetting: degC(11) },
    });
    t.equal(given.status, 200);
    await s.run(2 * MINUTE, 1000);
    t.same(await noSetting(s), [], 'a setting given: resolved');
    t.equal((await events(s, 'resolved')).length, 1, 'resolved once');
    const resolved = await until('the resolve on the webhook', limit(10_000), () =>
      hooks.json('/hook').find((m) => m.event === 'resolved' && m.condition === KIND),
    );
    t.match(
      resolved.message,
      /^Back to normal after (6m 5\ds|7m \ds)/,
      'back to normal, counted from when the setting went (7 min before)',
    );
  },
);

t.test('a let-go setpoint disabled is no alert: the brewer turned it off', async (t) => {
  const f = await fermenter(t);
  const s = f.s;
  await s.post('blocks/delete', { id: 'Profile' });
  await s.run(6 * MINUTE, 1000);
  t.equal((await noSetting(s)).length, 1, 'the alert');
  await s.post('blocks/patch', { id: SETPOINT, type: 'SetpointSensorPair', data: { enabled: false } });
  await s.run(2 * MINUTE, 1000);
  t.same(await noSetting(s), [], 'disabled: resolved');
  await s.run(10 * MINUTE, 1000);
  t.equal((await events(s, 'fired')).length, 1, 'and not fired again');
});

t.test('the PIDs on it deleted: the alert ends saying so, not "Back to normal"', async (t) => {
  const f = await fermenter(t);
  const s = f.s;
  await s.post('blocks/delete', { id: 'Profile' });
  await s.run(6 * MINUTE, 1000);
  t.equal((await noSetting(s)).length, 1, 'the alert');
  t.equal((await s.post('blocks/delete', { id: HEAT })).status, 200);
  await s.run(2 * MINUTE, 1000);
  const [still] = await noSetting(s);
  t.ok(still, 'one PID left on it: still active');
  t.match(still.text, `the PID on it (${COOL}) is not controlling`, 'naming the PID left');
  t.equal((await s.post('blocks/delete', { id: COOL })).status, 200);
  await s.run(2 * MINUTE, 1000);
  t.same(await noSetting(s), [], 'no PID reads it any more: ended');
  const [resolved] = await events(s, 'resolved');
  t.ok(resolved, 'one resolve');
  t.notMatch(resolved.text, /Back to normal/, 'not told as back to normal: the setpoint still has no setting');
  t.match(
    resolved.text,
    `No longer watched: Setpoint without a setting: ${SETPOINT}: ${COOL} was deleted while this alert was active`,
    'it says what happened',
  );
});

// Deleting the PIDs was told as "No longer watched" (23abe32); disabling them, setting them to read
// another setpoint, or disabling the setpoint itself resolved it as "Back to normal" a minute
// later, though the setpoint still had no setting: the problem stopped being watched.
t.test(
  'the PIDs on it disabled or relinked, or the setpoint disabled: "No longer watched", not "Back to normal"',
  async (t) => {
    const lastResolve = async (s: SimApp) => (await events(s, 'resolved')).at(0)?.text as string | undefined;
    const f = await fermenter(t);
    const s = f.s;
    await s.post('blocks/create', {
      id: 'Other',
      type: 'SetpointSensorPair',
      data: { enabled: true, sensorId: link('Sensor'), storedSetting: degC(18), filter: 'FILTER_NONE' },
    });
    await s.post('blocks/delete', { id: 'Profile' });
    await s.run(6 * MINUTE, 1000);
    t.equal((await noSetting(s)).length, 1, 'the alert');
    t.equal((await s.post('blocks/patch', { id: HEAT, type: 'Pid', data: { enabled: false } })).status, 200);
    await s.run(2 * MINUTE, 1000);
    const [still] = await noSetting(s);
    t.ok(still, 'one enabled PID left on it: still active');
    t.match(still?.text, `the PID on it (${COOL}) is not controlling`, 'naming the PID left');
    t.equal((await s.post('blocks/patch', { id: COOL, type: 'Pid', data: { inputId: link('Other') } })).status, 200);
    await s.run(2 * MINUTE, 1000);
    t.same(await noSetting(s), [], 'no enabled PID reads it any more: ended');
    t.equal((await events(s, 'resolved')).length, 1, 'one resolve');
    const relinked = await lastResolve(s);
    t.notMatch(relinked, /Back to normal/, 'not told as back to normal: the setpoint still has no setting');
    t.match(
      relinked,
      `No longer watched: Setpoint without a setting: ${SETPOINT}: ${COOL} was set to read Other while this alert was active`,
      'it says what happened',
    );

    // Both PIDs back on it: the alert again; the last one disabled ends it, told so.
    await s.post('blocks/patch', { id: COOL, type: 'Pid', data: { inputId: link(SETPOINT) } });
    await s.run(6 * MINUTE, 1000);
    t.equal((await noSetting(s)).length, 1, 'the alert again');
    t.equal((await s.post('blocks/patch', { id: COOL, type: 'Pid', data: { enabled: false } })).status, 200);
    await s.run(2 * MINUTE, 1000);
    t.same(await noSetting(s), [], 'the last PID disabled: ended');
    t.match(await lastResolve(s), `No longer watched: Setpoint without a setting: ${SETPOINT}: ${COOL} was disabled`);

    // And the setpoint itself disabled (its PIDs on): ended, told so.
    await s.post('blocks/patch', { id: COOL, type: 'Pid', data: { enabled: true } });
    await s.run(6 * MINUTE, 1000);
    t.equal((await noSetting(s)).length, 1, 'the alert again');
    await s.post('blocks/patch', { id: SETPOINT, type: 'SetpointSensorPair', data: { enabled: false } });
    await s.run(2 * MINUTE, 1000);
    t.same(await noSetting(s), [], 'the setpoint disabled: ended');
    t.match(
      await lastResolve(s),
      `No longer watched: Setpoint without a setting: ${SETPOINT}: ${SETPOINT} was disabled`,
    );
    t.equal((await events(s, 'resolved')).length, 3, 'three resolves, none of them "Back to normal"');
    t.notOk((await events(s, 'resolved')).some((e) => /Back to normal/.test(e.text)));
  },
);

// The alert names the PIDs it is there for; renamed, they were still named by their old names in
// what the alert said of itself once it was no longer seen (clearing, or ended before the next
// check): "Back to normal ... It was: ... the PIDs on it (Brew "Kettle", ...)", a block that no
// longer exists under that name. It names them as they are called now, as its raise does.
t.test('a PID renamed while its alert is clearing: the resolve names it as it is called now', async (t) => {
  const RENAMED = 'Heat PID';
  const f = await fermenter(t);
  const s = f.s;
  await s.post('blocks/delete', { id: 'Profile' });
  await s.run(6 * MINUTE, 1000);
  t.equal((await noSetting(s)).length, 1, 'the alert');
  // A setting given: the alert is clearing (no longer seen), then the PID is renamed.
  await s.post('blocks/patch', { id: SETPOINT, type: 'SetpointSensorPair', data: { storedSetting: degC(11) } });
  await s.run(5000, 1000);
  t.equal((await s.post('blocks/rename', { existing: HEAT, desired: RENAMED })).status, 200);
  const [clearing] = await noSetting(s);
  t.equal(
    clearing?.text,
    `${SETPOINT} has no setting: the PIDs on it (${RENAMED}, ${COOL}) are not controlling. Give it a setting to take over`,
    'the active alert names it as it is called now',
  );
  t.same(clearing?.values.pids, [RENAMED, COOL], 'its values too');
  await s.run(2 * MINUTE, 1000);
  const [resolved] = await events(s, 'resolved');
  t.match(resolved?.text, 'Back to normal after');
  t.match(
    resolved?.text,
    `It was: ${SETPOINT} has no setting: the PIDs on it (${RENAMED}, ${COOL}) are not controlling`,
  );
  t.notMatch(resolved?.text, HEAT, 'not by the name it no longer has');
});

t.test('a PID renamed and disabled before the next check: the end names it as it is called now', async (t) => {
  const f = await fermenter(t);
  const s = f.s;
  await s.post('blocks/delete', { id: 'Profile' });
  await s.post('blocks/delete', { id: COOL });
  await s.run(6 * MINUTE, 1000);
  const [alert] = await noSetting(s);
  t.match(alert?.text, `the PID on it (${HEAT}) is not controlling`, 'the alert');
  t.equal((await s.post('blocks/rename', { existing: HEAT, desired: 'Kettle PID' })).status, 200);
  t.equal((await s.post('blocks/patch', { id: 'Kettle PID', type: 'Pid', data: { enabled: false } })).status, 200);
  await s.run(2000, 1000);
  const [ended] = await events(s, 'resolved');
  t.match(
    ended?.text,
    `No longer watched: Setpoint without a setting: ${SETPOINT}: Kettle PID was disabled while this alert was active`,
  );
  t.match(ended?.text, `It was: ${SETPOINT} has no setting: the PID on it (Kettle PID) is not controlling`);
  t.notMatch(ended?.text, HEAT, 'not by the name it no longer has');
});

t.test('no alert without an enabled PID on the setpoint, nor with the rule off', async (t) => {
  const f = await fermenter(t);
  const s = f.s;
  await s.post('blocks/patch', { id: HEAT, type: 'Pid', data: { enabled: false } });
  await s.post('blocks/delete', { id: COOL });
  await s.post('blocks/delete', { id: 'Profile' });
  await s.run(10 * MINUTE, 1000);
  t.same(await noSetting(s), [], 'no PID controls by it: nothing is lost');
  await s.post('blocks/patch', { id: HEAT, type: 'Pid', data: { enabled: true } });
  t.equal((await put(s, 'alerts/rules', { noSetting: { enabled: false } })).statusCode, 200);
  await s.run(10 * MINUTE, 1000);
  t.same(await noSetting(s), [], 'the rule off: no alert');
  t.equal((await put(s, 'alerts/rules', { noSetting: { enabled: true, after: 60 } })).statusCode, 200);
  await s.run(2 * MINUTE, 1000);
  t.equal((await noSetting(s)).length, 1, 'on again with a minute: the alert');
  t.match((await noSetting(s))[0].text, `the PID on it (${HEAT}) is not controlling`, 'naming the one enabled PID');
});

t.test(
  'a restart is no event: with a setting nothing fires; with none, the alert after the rule time, once',
  async (t) => {
    const f = await fermenter(t);
    // At once, for the start: a setpoint seen without a setting for a moment while the blocks load would fire.
    t.equal((await put(f.s, 'alerts/rules', { noSetting: { enabled: true, after: 0 } })).statusCode, 200);
    let s = await f.restart();
    await s.run(10 * MINUTE, 1000);
    t.equal(s.data(SETPOINT).claimedBy?.id, 'Profile', 'driven again after the restart');
    t.same(await events(s, 'fired'), [], 'a restart with a setting: nothing fired');
    t.equal((await put(s, 'alerts/rules', { noSetting: { enabled: true, after: 300 } })).statusCode, 200);

    // Let go, and restarted before the rule time: the start is not the cause, the count begins again.
    await s.post('blocks/delete', { id: 'Profile' });
    await s.run(MINUTE, 1000);
    s = await f.restart();
    t.equal(s.data(SETPOINT).setting.value, null, 'no setting after the restart either');
    await s.run(3 * MINUTE, 1000);
    t.same(await noSetting(s), [], 'three minutes after the start: no alert yet');
    await s.run(3 * MINUTE, 1000);
    t.equal((await noSetting(s)).length, 1, 'the rule time after the start: the alert');
    t.equal((await events(s, 'fired')).length, 1, 'fired once');

    // Active across a restart: still active, not fired again.
    s = await f.restart();
    await s.run(10 * MINUTE, 1000);
    t.equal((await noSetting(s)).length, 1, 'still active after another restart');
    t.equal((await events(s, 'fired')).length, 1, 'not fired again');
  },
);
