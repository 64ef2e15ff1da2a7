// The disk-full condition on a real small file system: it is seen once the data dir's free
// space falls under the rule, and the space is read at most every DISK_CHECK_MS (a disk fills
// over minutes; statfs on every check cost a system call each time), but every DISK_RECHECK_MS
// once writes fail on a full disk or while the space is under the rule.
import { rmSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { Conditions, DISK_CHECK_MS, DISK_RECHECK_MS } from '../../src/alerts/conditions.js';
import { effectiveRules } from '../../src/alerts/rules.js';
import { fill, smallDisk } from '../helpers/small-disk.js';
import { healthySources, noBlocks } from './sources.js';

const disk = smallDisk('edgeblocks-alert-disk-');
t.teardown(() => disk.unmount());

t.test(
  'disk-full is seen below the rule, names the free space, and the disk is read at most every DISK_CHECK_MS',
  async (t) => {
    let clock = 0;
    const conditions = new Conditions(healthySources(noBlocks, disk.mountPoint, { monotonic: () => clock }));
    const rules = effectiveRules({ service: { diskFreePercent: 5 } }, null);
    const diskFull = () => conditions.evaluate(rules).seen.find((o) => o.kind === 'disk-full');

    t.equal(diskFull(), undefined, 'an empty disk: no disk-full');
    const filler = path.join(disk.mountPoint, 'filler');
    fill(filler);
    clock += DISK_CHECK_MS - 1;
    t.equal(diskFull(), undefined, 'filled, but inside the check interval: the last reading stands');
    clock += 1;
    const seen = diskFull();
    t.ok(seen, 'filled: disk-full once the interval has passed');
    t.match(seen?.text, /nearly full: 0\.0 % free \(alert below 5 %\)/, 'the text names the free space and the rule');
    t.same(seen?.values, { freePercent: 0 });

    rmSync(filler);
    t.ok(diskFull(), 'space freed inside the interval: still the last reading');
    t.ok(DISK_RECHECK_MS < DISK_CHECK_MS);
    clock += DISK_RECHECK_MS;
    t.equal(diskFull(), undefined, 'space freed: gone at the next reading, which comes sooner while the disk is low');
  },
);

t.test('a write that met a full disk has the space read within DISK_RECHECK_MS', async (t) => {
  let clock = 0;
  let historyFull = false;
  const storage = { full: false, refusedError: null };
  const conditions = new Conditions(
    healthySources(noBlocks, disk.mountPoint, {
      historyOk: () => (historyFull ? { ok: false, error: 'SQLITE_FULL', diskFull: true } : { ok: true, error: null }),
      storage,
      monotonic: () => clock,
    }),
  );
  const rules = effectiveRules({ service: { diskFreePercent: 5 } }, null);
  const diskFull = () => conditions.evaluate(rules).seen.find((o) => o.kind === 'disk-full');
  const filler = path.join(disk.mountPoint, 'filler');
  t.teardown(() => rmSync(filler, { force: true }));

  t.equal(diskFull(), undefined, 'an empty disk');
  fill(filler);
  clock += DISK_RECHECK_MS;
  t.equal(diskFull(), undefined, 'filled, no write failed yet: the 30 s reading stands');
  historyFull = true;
  t.ok(diskFull(), 'history failing on the full disk: read again at once');

  rmSync(filler);
  historyFull = false;
  clock += DISK_RECHECK_MS;
  t.equal(diskFull(), undefined, 'freed: gone at the next reading');

  fill(filler);
  storage.full = true;
  clock += DISK_RECHECK_MS;
  t.ok(diskFull(), 'a block write failing on the full disk (StorageHealth) does the same');
});

t.test('a data dir that cannot be read raises no disk-full', async (t) => {
  const conditions = new Conditions(healthySources(noBlocks, path.join(disk.mountPoint, 'no', 'such', 'dir')));
  t.equal(
    conditions.evaluate(effectiveRules(undefined, null)).seen.find((o) => o.kind === 'disk-full'),
    undefined,
  );
});
