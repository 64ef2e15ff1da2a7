import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { mock } from 'node:test';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/log.js';
import { BackupSchedule, isValidCron } from '../../src/service/backup-schedule.js';
import { BackupFiles } from '../../src/store/backup-files.js';
import { testRuntime } from '../helpers/runtime.js';
import { at } from '../helpers/json.js';

t.test('scheduled backups follow the cron schedule on a manual clock and are pruned to the limit', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-backups-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.UTC(2026, 10, 22, 10, 30, 0) });
  t.teardown(() => mock.timers.reset());
  const { runtime } = testRuntime();
  runtime.create({ id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 18 } });
  const files = new BackupFiles(dir);
  files.write('by-hand', runtime.backupSave());
  files.write('auto-mine', runtime.backupSave());
  const sched = new BackupSchedule({
    cron: '0 * * * *',
    keep: 3,
    files,
    save: () => runtime.backupSave(),
    log: silentLogger,
  });
  sched.start();
  t.teardown(() => sched.stop());
  t.equal(sched.nextRun()?.toISOString(), '2026-11-22T11:00:00.000Z', 'next run on the hour');
  mock.timers.tick(29 * 60 * 1000);
  t.same(files.list().sort(), ['auto-mine', 'by-hand'], 'nothing before the hour');
  mock.timers.tick(60 * 1000);
  await new Promise((r) => setImmediate(r));
  t.same(
    files.list().filter((n) => n.startsWith('auto-2')),
    ['auto-20261122T110000Z'],
    'one backup at 11:00',
  );
  // Between real hours the run's promise settles before the next one is due.
  for (let h = 0; h < 5; h++) {
    mock.timers.tick(60 * 60 * 1000);
    await new Promise((r) => setImmediate(r));
  }
  const auto = files
    .list()
    .filter((n) => n.startsWith('auto-2'))
    .sort();
  t.same(auto, ['auto-20261122T140000Z', 'auto-20261122T150000Z', 'auto-20261122T160000Z'], 'only the newest 3 kept');
  t.ok(files.list().includes('by-hand'), 'backups saved by hand are never pruned');
  t.ok(files.list().includes('auto-mine'), 'not even when their name starts with auto-');

  runtime.deleteAll();
  const backup = files.read(auto[2]!) as { name: string; blocks: unknown[] };
  t.equal(backup.name, 'auto-20261122T160000Z');
  const { messages } = await runtime.backupLoad(backup);
  t.same(messages, []);
  t.equal(at(runtime.read({ id: 'Beer Sensor' }).json().data, 'setting', 'value'), 18, 'a scheduled backup loads back');
});

t.test('cron validation', async (t) => {
  t.ok(isValidCron('0 * * * *'));
  t.ok(isValidCron('*/15 * * * *'));
  t.ok(isValidCron('0 0 * * * *'), 'six fields: seconds first');
  t.notOk(isValidCron('every hour'));
  t.notOk(isValidCron('61 * * * *'), 'minute out of range');
  t.notOk(isValidCron('0 0 30 2 *'), 'a date that never comes');
});

t.test('backup names cannot escape the backup directory', async (t) => {
  const files = new BackupFiles(mkdtempSync(path.join(tmpdir(), 'edgeblocks-backups-')));
  t.throws(() => files.write('../evil', {}), /backup name/);
  t.throws(() => files.write('.hidden', {}), /backup name/);
  t.equal(files.read('missing'), null);
});

t.test('after the clock is set back, new scheduled backups are kept and the ones named ahead go first', async (t) => {
  // A Pi whose clock ran a year ahead (a wrong fake-hwclock file, a bad time source) until NTP set it right.
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-backups-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mock.timers.enable({ apis: ['Date'], now: Date.UTC(2027, 10, 22, 10, 0, 0) });
  t.teardown(() => mock.timers.reset());
  const files = new BackupFiles(dir);
  const sched = new BackupSchedule({
    cron: '0 * * * *',
    keep: 3,
    files,
    save: () => ({ blocks: [] }),
    log: silentLogger,
  });
  const hourly = (n: number) =>
    Array.from({ length: n }, () => {
      const name = sched.runOnce();
      mock.timers.tick(60 * 60 * 1000);
      return name;
    });
  t.same(hourly(3), ['auto-20271122T100000Z', 'auto-20271122T110000Z', 'auto-20271122T120000Z']);

  mock.timers.setTime(Date.UTC(2026, 10, 22, 13, 0, 0));
  const afterFix = hourly(1)[0]!;
  t.equal(afterFix, 'auto-20261122T130000Z');
  t.ok(files.list().includes(afterFix), 'the backup just saved is still there');
  t.same(
    files.list().sort(),
    ['auto-20261122T130000Z', 'auto-20271122T110000Z', 'auto-20271122T120000Z'],
    'the oldest of those named ahead was pruned',
  );
  hourly(2);
  t.same(
    files.list().sort(),
    ['auto-20261122T130000Z', 'auto-20261122T140000Z', 'auto-20261122T150000Z'],
    'after `keep` runs only backups made since are left',
  );
});
