// Issue 44 item 7: the service's wall-clock record. A start on a clock behind the newest time seen
// is "behind" (status, and history's mark) until the clock jumps to the present; a clock that
// stays behind for an hour without network time is taken as right (a record left by a clock that
// was wrongly ahead must not hold history back for years).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { BEHIND_LIMIT_MS, WallClockService } from '../../src/service/wall-clock.js';
import { openDatabase } from '../../src/store/db.js';
import { silentLogger } from '../../src/log.js';
import { testRuntime } from '../helpers/runtime.js';

const DAY = 86_400_000;
const W = Date.UTC(2026, 10, 1, 12);

t.test('behind the last time seen: until a jump to the present, or an hour', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-wallclock-'));
  const db = openDatabase(dir);
  t.teardown(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const runtimes = new Map<WallClockService, ReturnType<typeof testRuntime>['runtime']>();
  const run = (clock: ManualClock) => {
    const { runtime } = testRuntime({ clock });
    const svc = new WallClockService(db, runtime, silentLogger);
    runtimes.set(svc, runtime);
    return svc;
  };
  const first = run(new ManualClock(0, W));
  first.start();
  first.stop();
  t.equal(first.behind, false);

  const clock = new ManualClock(0, W - 180 * DAY);
  const second = run(clock);
  second.start();
  t.equal(second.behind, true, 'a start 6 months back is behind');
  t.equal(second.highWater(), W, 'history stays after the last time seen');
  t.match(second.status(), { clock: { behind: { lastSeen: new Date(W).toISOString() } } });
  clock.advance(10_000);
  clock.jumpWall(180 * DAY);
  runtimes.get(second)!.checkClock(); // the next tick
  t.equal(second.behind, false, 'network time: caught up');
  t.equal(second.highWater(), null);
  t.match(second.status(), { clock: { behind: null, jumps: 1, lastJump: { text: 'jumped 180d 0s forward' } } });
  second.stop();

  const stuck = new ManualClock(0, W - 180 * DAY);
  const third = run(stuck);
  third.start();
  t.equal(third.behind, true);
  stuck.advance(BEHIND_LIMIT_MS);
  third.stop();
  t.equal(third.behind, false, 'an hour behind without a jump: taken as right');
  t.equal(third.highWater(), null, 'history is stored at its times again');
});
