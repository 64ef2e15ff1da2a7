// The removal of a former Home Assistant device (former-ids.ts) under the fleet's ACL exactly as
// docs/fleet/mosquitto.acl ships it: one broker user per service id, each limited to its own topics.
// - Renamed ferm-1 -> ferm-2 (and its broker user with it), the controller can neither read nor
//   write ferm-1's topics: nothing was cleared and nothing said, and the old device stayed in Home
//   Assistant for good. Now it says so once, naming the id and how to clear its topics by hand.
// - With Home Assistant off, the end-of-clears marker svc/alerts/<id>/ha was write-only for the
//   controller: the wait for it never ended, the id was never forgotten, and "removing the entities
//   ..." came again at every start. The ACL lets a controller read its marker back.
// tags: slow (a real Mosquitto with passwords and the shipped ACL, services restarted)
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { startApp } from '../helpers/app.js';
import { logLines } from '../helpers/log-lines.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { retainedTopics } from '../helpers/retained-topics.js';
import { needTools } from '../helpers/tools.js';
import { until } from '../helpers/until.js';
import { ROOT } from '../mqtt/fixtures.js';

needTools('mosquitto_passwd', 'mosquitto_sub');

const secret = (user: string) => `${user}-secret`;

const tempDir = (t: Test) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-ha-acl-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

/** A real Mosquitto loading docs/fleet/mosquitto.acl as shipped, with a user per id and an admin (may do anything). */
async function fleetBroker(t: Test, ids: string[], edit: (acl: string) => string = (acl) => acl) {
  const dir = tempDir(t);
  const passwd = path.join(dir, 'passwd');
  const acl = path.join(dir, 'acl');
  execFileSync('mosquitto_passwd', ['-b', '-c', passwd, 'admin', secret('admin')], { stdio: 'pipe' });
  for (const id of ids) execFileSync('mosquitto_passwd', ['-b', passwd, id, secret(id)], { stdio: 'pipe' });
  writeFileSync(acl, edit(readFileSync(path.join(ROOT, 'docs/fleet/mosquitto.acl'), 'utf8')));
  // The test's own reader, to see what is left retained: appended, the shipped lines untouched.
  execFileSync('sh', ['-c', `printf '\\nuser admin\\ntopic readwrite #\\n' >> '${acl}'`]);
  // mosquitto started as root reads its files as the mosquitto user
  chmodSync(dir, 0o755);
  for (const f of [passwd, acl]) chmodSync(f, 0o644);
  const broker = await startMosquitto(undefined, [
    'allow_anonymous false',
    `password_file ${passwd}`,
    `acl_file ${acl}`,
  ]);
  t.teardown(() => broker.stop());
  const as = (id: string) => ({
    mqttUrl: broker.url,
    serviceId: id,
    mqttUsername: id,
    mqttPassword: secret(id),
    emitInterval: '200',
  });
  /** The retained (non-empty) topics under `filters`, read by the admin behind a marker. */
  const retained = (...filters: string[]) =>
    retainedTopics(broker.url, filters, { username: 'admin', password: secret('admin') });
  return { as, retained };
}

/** What Home Assistant reads of `id`, less its availability (its retained `offline` is left). */
const deviceOf = (id: string) => [`homeassistant/+/edgeblocks_${id}/#`, `svc/ha/${id}/+`, `svc/alerts/${id}/ha`];

t.test('Home Assistant turned off under the fleet ACL: the device is removed and the id forgotten', async (t) => {
  const { as, retained } = await fleetBroker(t, ['ferm-1']);
  const dataDir = tempDir(t);
  const on = await startApp({ ...as('ferm-1'), homeAssistant: 'true' }, { dataDir });
  t.teardown(() => on.close());
  const res = await on.post('blocks/create', { id: 'Beer', type: 'TempSensorMock', data: { setting: 20 } });
  t.equal(res.status, 201);
  const config = `homeassistant/sensor/edgeblocks_ferm-1/${res.body.nid}_value/config`;
  await until(async () => (await retained(config)).length === 1, 'the entity announced');
  await on.close();

  const first = logLines();
  const off = await startApp({ ...as('ferm-1'), homeAssistant: 'false' }, { dataDir, log: first.log });
  t.teardown(() => off.close());
  await until(
    async () => (await retained(...deviceOf('ferm-1'))).every((topic) => topic.endsWith('/availability')),
    'the device removed',
  );
  await until(
    () => first.lines.some((l) => /removed the entities of the former service id ferm-1 /.test(l.msg)),
    'ferm-1 forgotten: the controller read back the end of its clears',
  );
  await off.close();

  const { log, lines } = logLines();
  const again = await startApp({ ...as('ferm-1'), homeAssistant: 'false' }, { dataDir, log });
  t.teardown(() => again.close());
  await until(() => (again.app.mqtt.status() as { subscribed: boolean }).subscribed, 'the controller subscribed');
  await again.close();
  t.same(
    lines.filter((l) => /former service id/.test(l.msg)).map((l) => l.msg),
    [],
    'the next start has nothing left to remove',
  );
});

t.test('an ACL that lets the controller write the end of its clears but not read it: the log says so', async (t) => {
  const writeOnly = (acl: string) => {
    const edited = acl.replace('pattern readwrite svc/alerts/%u/ha', 'pattern write svc/alerts/%u/ha');
    if (edited === acl) throw new Error('the shipped ACL has no readwrite line for svc/alerts/%u/ha');
    return edited;
  };
  const { as, retained } = await fleetBroker(t, ['ferm-1'], writeOnly);
  const dataDir = tempDir(t);
  const on = await startApp({ ...as('ferm-1'), homeAssistant: 'true' }, { dataDir });
  t.teardown(() => on.close());
  const res = await on.post('blocks/create', { id: 'Beer', type: 'TempSensorMock', data: { setting: 20 } });
  const config = `homeassistant/sensor/edgeblocks_ferm-1/${res.body.nid}_value/config`;
  await until(async () => (await retained(config)).length === 1, 'the entity announced');
  await on.close();

  const { log, lines } = logLines('warn');
  const off = await startApp({ ...as('ferm-1'), homeAssistant: 'false' }, { dataDir, log });
  t.teardown(() => off.close());
  await until(() => lines.length > 0, 'a warning', 15_000);
  t.match(lines[0]!.msg, 'svc/alerts/ferm-1/ha', 'names the topic');
  t.match(lines[0]!.msg, 'may write that topic but not read it', 'and what the user lacks');
});

t.test('renamed under the fleet ACL: the controller says it cannot clear the old device, and how to', async (t) => {
  const { as, retained } = await fleetBroker(t, ['ferm-1', 'ferm-2']);
  const dataDir = tempDir(t);
  const first = await startApp({ ...as('ferm-1'), homeAssistant: 'true' }, { dataDir });
  t.teardown(() => first.close());
  const res = await first.post('blocks/create', { id: 'Beer', type: 'TempSensorMock', data: { setting: 20 } });
  t.equal(res.status, 201);
  const config = `homeassistant/sensor/edgeblocks_ferm-1/${res.body.nid}_value/config`;
  await until(async () => (await retained(config)).length === 1, 'the entity announced');
  await first.close();

  const renamed = logLines('warn');
  const second = await startApp({ ...as('ferm-2'), homeAssistant: 'true' }, { dataDir, log: renamed.log });
  t.teardown(() => second.close());
  await until(
    () => renamed.lines.some((l) => /former service id ferm-1/.test(l.msg)),
    'a warning about the device of ferm-1',
    15_000,
  );
  const warning = renamed.lines.find((l) => /former service id ferm-1/.test(l.msg))!.msg;
  t.match(warning, /access rules/, 'names the likely cause');
  t.match(warning, "mosquitto_sub -t 'homeassistant/+/edgeblocks_ferm-1/#'", 'tells how to clear its topics');
  t.match(warning, '--remove-retained', 'by clearing what is retained');
  // Said once: the controller can do nothing more about it, so ferm-1 is no longer remembered.
  const ids = second.app.db.prepare("SELECT value FROM settings WHERE key = 'homeassistant_ids'").pluck().get();
  t.same(JSON.parse(String(ids)), { serviceId: 'ferm-2', topicRoot: 'svc', former: [] }, 'ferm-1 forgotten');
  await second.close();
  t.same(await retained(config), [config], 'the old config is still retained: ferm-2 may not clear it');

  // What the warning says to do, with ferm-1's user (it may clear its own topics), clears the device.
  const url = new URL(as('ferm-1').mqttUrl);
  try {
    execFileSync(
      'mosquitto_sub',
      ['-h', url.hostname, '-p', url.port, '-u', 'ferm-1', '-P', secret('ferm-1')].concat([
        '-t',
        'homeassistant/+/edgeblocks_ferm-1/#',
        '--remove-retained',
        '--retained-only',
        '-W',
        '2',
      ]),
      { stdio: 'pipe' },
    );
  } catch (e) {
    // -W: its timeout ends it with status 27 when nothing more is retained.
    if ((e as { status?: number }).status !== 27) throw e;
  }
  t.same(await retained('homeassistant/+/edgeblocks_ferm-1/#'), [], 'the old configs cleared by hand');
});
