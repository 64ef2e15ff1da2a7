// The scheduled prune kept the backups whose names sorted last, and names were not made in an order
// that sorts: saves within one second (a schedule of seconds, a save taking longer than the next
// run) took `auto-<time>-2`, `-3`..., `-10` sorted before `-2`, and a name the prune had freed was
// taken again. The newest backup then sorted first and was pruned right after it was saved, and an
// older one kept. A name now never sorts before one made earlier in its second (its number is one
// past the highest there), and the prune orders by the time in the name, then by that number.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { mock } from 'node:test';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/log.js';
import { BackupSchedule } from '../../src/service/backup-schedule.js';
import { BackupFiles } from '../../src/store/backup-files.js';

const STAMP = '20261122T103000Z';

function schedule(t: Test, keep: number) {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-backups-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // Every save in the same second.
  mock.timers.enable({ apis: ['Date'], now: Date.UTC(2026, 10, 22, 10, 30, 0, 250) });
  t.teardown(() => mock.timers.reset());
  const files = new BackupFiles(dir);
  const sched = new BackupSchedule({
    cron: '* * * * * *',
    keep,
    files,
    save: () => ({ blocks: [] }),
    log: silentLogger,
  });
  return { files, sched };
}

t.test('saves within one second: the newest is always kept, the oldest pruned', async (t) => {
  const { files, sched } = schedule(t, 2);
  const saved: string[] = [];
  for (let i = 0; i < 12; i++) {
    const name = sched.runOnce();
    t.ok(name, `run ${i + 1} saved`);
    saved.push(name!);
    t.same(files.list().sort(), saved.slice(-2).sort(), `after run ${i + 1}: the last two saved are the ones kept`);
  }
  t.equal(new Set(saved).size, saved.length, 'no name is taken twice');
});

t.test('past -9 in one second, the newest (-10) is kept, not pruned as sorting first', async (t) => {
  const { files, sched } = schedule(t, 3);
  files.write(`auto-${STAMP}`, { blocks: [] });
  for (let i = 2; i <= 9; i++) files.write(`auto-${STAMP}-${i}`, { blocks: [] });
  const name = sched.runOnce();
  t.equal(name, `auto-${STAMP}-10`, 'the next name in that second');
  t.same(
    files.list().sort(),
    [`auto-${STAMP}-10`, `auto-${STAMP}-8`, `auto-${STAMP}-9`],
    'the three made last are kept',
  );
});

t.test('a name the prune freed in this second is not taken again', async (t) => {
  const { files, sched } = schedule(t, 1);
  files.write(`auto-${STAMP}-3`, { blocks: [] });
  const name = sched.runOnce();
  t.equal(name, `auto-${STAMP}-4`, 'one past the highest in that second, not the free auto-<time> or -2');
  t.same(files.list(), [name], 'and it is the one kept');
});
