// The embedded history store on a real full disk (a small tmpfs filled to the last byte): the
// flushes fail, the points waiting for the next one are thinned to keep memory bounded, and
// that is counted as dropped for the full disk, the disk-full alert's, not as a second problem
// ('thinned' raised a history-dropped alert again and again through a day-long full disk in the
// month soak run).
import path from 'node:path';
import t from 'tap';
import { HistoryDrops } from '../../src/history/drops.js';
import { EmbeddedStore } from '../../src/history/embedded/embedded-store.js';
import { DISK_FULL_DROP } from '../../src/history/store.js';
import { silentLogger } from '../../src/log.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { fill, smallDisk } from '../helpers/small-disk.js';

t.test('points thinned while a full disk fails the flushes are dropped for the full disk', async (t) => {
  const disk = smallDisk('edgeblocks-history-full-', '16m');
  t.teardown(() => disk.unmount());
  const clock = new ManualClock(0, Date.UTC(2026, 0, 1));
  const drops = new HistoryDrops(silentLogger, { intervalMs: 60_000, now: () => clock.wall()! });
  const store = new EmbeddedStore({
    dataDir: path.join(disk.mountPoint, 'history'),
    now: () => clock.wall()!,
    flushIntervalMs: 60_000,
    retentionMs: 86_400_000,
    maxBytes: 1e9,
    log: silentLogger,
    maxPendingPoints: 1000,
    drops,
  });
  t.teardown(() => store.close());
  const write = (n: number) => {
    for (let i = 0; i < n; i++) {
      clock.advance(5000);
      store.write('Beer Sensor', [['value[degC]', 18 + (i % 10) / 100]], clock.wall()!, true);
      if (i % 100 === 99) store.flushSync();
    }
  };
  write(200);
  t.equal(store.health().ok, true, 'flushing while there is room');

  fill(path.join(disk.mountPoint, 'filler'));
  write(5000);
  t.match(store.health(), { ok: false, diskFull: true }, 'the flushes fail on the full disk');
  t.ok((store.status().pendingPoints as number) <= 1100, `memory stays bounded (${store.status().pendingPoints})`);
  t.ok(
    (drops.own[DISK_FULL_DROP] ?? 0) > 0,
    `the controller's own points dropped for the full disk: ${JSON.stringify(drops.own)}`,
  );
  t.equal(drops.own.thinned, undefined, 'none counted as thinned: that would be a second alert');
  t.equal(drops.ownDrop()?.reason, DISK_FULL_DROP);
  t.match(drops.ownDrop()?.detail, /\(the disk is full\)/);
});
