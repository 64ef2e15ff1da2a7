// An alert's `after` runs on across a restart. The time a problem had been seen was kept in memory
// only: a sensor null for 50 min of a 60 min `after`, then a restart, waited another 60 min, and a
// controller crash-looping faster than its `after` never told of the problem. The built CLI on the
// emulated hardware, killed with SIGKILL while a problem is pending, started again with its wall
// clock two hours on (libfaketime; the monotonic clock restarts, as at a reboot): the time seen
// before the kill counts toward the `after`, the time stopped does not, and the alert says when
// the problem was really first seen: before the kill (src/alerts/pending-record.ts).
// tags: slow (the built service killed and started under a moved clock)
import path from 'node:path';
import t from 'tap';
import { killAndWait } from '../helpers/children.js';
import { postJson, startCli } from '../helpers/cli.js';
import { movedClock } from '../helpers/faketime.js';
import { limit } from '../helpers/limits.js';
import Database from '../../src/store/sqlite.js';
import { getJson } from './http.js';
import { until } from './receivers.js';
import { writeConfig } from './sim-service.js';

const AFTER_S = 30;
/** Seen this long before the kill: the restarted service has only the rest to wait. */
const SEEN_MS = 20_000;

t.test('a pending alert keeps the time it was seen across a kill -9', async (t) => {
  const cfg = writeConfig({
    checkIntervalMs: 100,
    rules: { sensorNull: { after: AFTER_S }, resolveAfter: 15, blocks: {} },
  });
  const clock = movedClock(path.dirname(cfg.file));
  const start = () =>
    startCli(
      ['--config', cfg.file, '--data-dir', cfg.dataDir, '--mqtt-port', '0'],
      { ...clock.env, EDGEBLOCKS_LOG_FORMAT: 'json' },
      t,
    );
  let cli = await start();
  const api = `${cli.base}/edge-one`;
  const createdAt = Date.now();
  const created = await postJson(`${api}/blocks/create`, {
    id: 'Probe',
    type: 'TempSensorMock',
    data: { connected: false, 'setting[degC]': 20 },
  });
  t.equal(created.status, 201);
  const key = `sensor-null:${created.body.nid}`;
  const storedStreak = () => {
    const db = new Database(path.join(cfg.dataDir, 'edgeblocks.db'), { readonly: true });
    try {
      const row = db.prepare("SELECT value FROM settings WHERE key = 'alert-pending'").get() as
        | { value: string }
        | undefined;
      return row && JSON.parse(row.value).pending.find((p: any) => p.key === key);
    } finally {
      db.close();
    }
  };
  // The problem is seen for 20 s, and that is stored, before the kill (a wait on the record, not a clock).
  await until('the pending problem stored', limit(60_000), () => storedStreak()?.countedMs >= SEEN_MS);
  t.same((await getJson(`${api}/alerts`)).active, [], 'not fired yet');
  await killAndWait(cli.child, 'SIGKILL');
  const killedAt = Date.now();
  // What the kill left: the last save, at least 20 s counted.
  const counted = storedStreak().countedMs as number;

  // Two hours on the wall clock; the monotonic one starts again from the boot.
  clock.move('+2h');
  const restartedAt = Date.now() + 2 * 3_600_000;
  cli = await start();
  t.teardown(() => killAndWait(cli.child, 'SIGTERM'));
  const again = `${cli.base}/edge-one`;
  const fired = await until('the sensor alert', limit(AFTER_S * 1000 + 15_000), async () =>
    (await getJson(`${again}/alerts`)).active.find((a: any) => a.key === key),
  );
  t.equal(fired.count, 1, 'one problem, seen across the restart');
  // The restore, each half: without it the alert would say it began after the restart, and it
  // would take its whole `after` from the first read after the restart (not less than AFTER_S).
  t.ok(
    fired.firstSeenAt >= createdAt - 1000 && fired.firstSeenAt <= killedAt - SEEN_MS,
    `first seen when it was, in the run before the kill (${((killedAt - fired.firstSeenAt) / 1000).toFixed(1)} s before the kill), not after the restart`,
  );
  const tookS = (fired.firedAt - restartedAt) / 1000;
  t.ok(
    tookS < AFTER_S,
    `fired ${tookS.toFixed(1)} s after the restart: the ${(counted / 1000).toFixed(1)} s counted before the kill counted toward its ${AFTER_S} s`,
  );
  t.ok(
    tookS >= AFTER_S - counted / 1000 - 1,
    'and not before the rest: the two hours the clock moved while stopped did not count toward it',
  );
});
