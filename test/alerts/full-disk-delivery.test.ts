// A full data disk, as the soak run (npm run soak) met it with the built service: the alert
// store's writes failed, so no alert fired at all (the tracker's first save threw), a failed
// delivery's retry crashed the service (an unhandled rejection), history failing on the disk
// sent a second alert, and a clean stop could not be recorded, so the next start reported an
// unclean stop. On a real small file system, filled to the last byte.
// tags: slow (the built service on a full disk, restarted)
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { killAndWait } from '../helpers/children.js';
import { startCli } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { fill, smallDisk } from '../helpers/small-disk.js';
import { HttpReceiver, until } from './receivers.js';

t.setTimeout(limit(240_000));

async function rig(t: Test) {
  const disk = smallDisk('edgeblocks-full-disk-', '24m');
  t.teardown(() => disk.unmount());
  const receiver = new HttpReceiver();
  await receiver.start();
  t.teardown(() => receiver.stop());
  const config = path.join(disk.mountPoint, '..', `${path.basename(disk.mountPoint)}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      hardware: 'sim',
      emitInterval: 500,
      historyFlushInterval: 500,
      alerts: {
        webhook: { url: receiver.url('/hook') },
        checkIntervalMs: 200,
        retryBaseMs: 200,
        retryMaxMs: 500,
        // A failing history store would alert after 1 s, a resolve needs 1 s clear.
        rules: { service: { unreachableAfter: 1 }, resolveAfter: 1 },
      },
    }),
  );
  t.teardown(() => rmSync(config, { force: true }));
  const dataDir = path.join(disk.mountPoint, 'data');
  const filler = path.join(disk.mountPoint, 'filler');
  const start = () =>
    startCli(['--config', config, '--data-dir', dataDir, '--mqtt-port', '0'], { EDGEBLOCKS_LOG_FORMAT: 'json' }, t);
  const sent = (event: string, condition?: string) =>
    receiver.json('/hook').filter((m) => m.event === event && (condition === undefined || m.condition === condition));
  return { receiver, filler, start, sent };
}

t.test(
  'on a full disk the disk-full alert is sent once (its retries too), the service runs on, history failing on the disk is no second alert, and the resolve comes once',
  async (t) => {
    const r = await rig(t);
    let svc = await r.start();
    await new Promise((res) => setTimeout(res, 1500)); // a few flushes, so history has written
    await killAndWait(svc.child, 'SIGTERM');
    // The Pi reboots on a full disk, and the receiver is down at first: each send fails and is retried.
    await r.receiver.stop();
    fill(r.filler);
    svc = await r.start();
    await new Promise((res) => setTimeout(res, limit(3000)));
    t.equal(svc.child.exitCode, null, 'the service runs on while sends fail on a full disk');
    await r.receiver.start();
    await until('the disk-full alert', limit(20_000), () => r.sent('fired', 'disk-full').at(0));
    // Long enough for history's failing flushes to raise history-unreachable (after 1 s) and drops.
    await new Promise((res) => setTimeout(res, limit(4000)));
    t.equal(svc.child.exitCode, null, 'still running');
    rmSync(r.filler);
    await until('the resolve', limit(60_000), () => r.sent('resolved', 'disk-full').at(0));
    await new Promise((res) => setTimeout(res, limit(2000)));
    const fired = r.receiver.json('/hook').filter((m) => m.event === 'fired');
    t.same(
      fired.map((m) => m.condition),
      ['disk-full'],
      `one alert for one full disk: ${fired.map((m) => m.title).join(' | ')}`,
    );
    t.equal(r.sent('resolved', 'disk-full').length, 1, 'resolved once');
  },
);

t.test('a clean stop on a full disk is no unclean stop at the next start', async (t) => {
  const r = await rig(t);
  let svc = await r.start();
  await new Promise((res) => setTimeout(res, 1500));
  fill(r.filler);
  await new Promise((res) => setTimeout(res, 1500));
  t.equal(await (killAndWait(svc.child, 'SIGTERM'), svc.exited), 0, 'a clean stop, exit 0');
  rmSync(r.filler);
  svc = await r.start();
  await new Promise((res) => setTimeout(res, limit(4000)));
  t.same(
    r.sent('fired', 'unclean-stop').map((m) => m.message),
    [],
    'no unclean-stop alert after a clean stop on a full disk',
  );
  // A kill -9 is still one.
  await killAndWait(svc.child, 'SIGKILL');
  svc = await r.start();
  await until('the unclean-stop alert after kill -9', limit(10_000), () => r.sent('fired', 'unclean-stop').at(0));
});

t.test('a restart on a full disk neither sends the disk-full alert again nor resolves it twice', async (t) => {
  const r = await rig(t);
  let svc = await r.start();
  await new Promise((res) => setTimeout(res, 1500));
  fill(r.filler);
  // History failing on the full disk has the free space read within seconds (DISK_RECHECK_MS).
  await until('the disk-full alert', limit(45_000), () => r.sent('fired', 'disk-full').at(0));
  // A daily restart while the disk is still full: the alert's state could not go to the database.
  await killAndWait(svc.child, 'SIGTERM');
  svc = await r.start();
  await new Promise((res) => setTimeout(res, limit(5000)));
  t.equal(r.sent('fired', 'disk-full').length, 1, 'fired once across the restart');
  rmSync(r.filler);
  await until('the resolve', limit(60_000), () => r.sent('resolved', 'disk-full').at(0));
  // And once the disk has room, the resolve is in the database: the next restart sends nothing.
  await new Promise((res) => setTimeout(res, limit(2000)));
  await killAndWait(svc.child, 'SIGTERM');
  svc = await r.start();
  await new Promise((res) => setTimeout(res, limit(4000)));
  const sent = r.receiver.json('/hook').filter((m) => m.event === 'fired' || m.event === 'resolved');
  t.same(
    sent.map((m) => `${m.event} ${m.condition}`),
    ['fired disk-full', 'resolved disk-full'],
    'one full disk across two restarts: one alert, one resolve',
  );
});
