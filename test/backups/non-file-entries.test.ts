// What else can sit in backups/ under a backup's name: a directory (`install -d` given a file's
// path, a copy that went wrong), a symbolic link (a hand-made shortcut, or one planted to read a file
// elsewhere), a FIFO. None is a backup: it is not listed, not followed, and a remove, a rename or
// the scheduled prune meeting one refuses it by name (422 at the API) instead of failing with a 500.
import t, { type Test } from 'tap';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/log.js';
import { BackupSchedule } from '../../src/service/backup-schedule.js';
import { BackupFiles, DamagedBackupError } from '../../src/store/backup-files.js';
import { startApp } from '../helpers/app.js';
import { logLines } from '../helpers/log-lines.js';
import { needTools } from '../helpers/tools.js';

needTools('mkfifo');

function tempDir(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-backups-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('only regular files are listed as backups; what is skipped is logged once', async (t) => {
  const { log, lines } = logLines();
  const files = new BackupFiles(tempDir(t), log);
  files.write('good', { blocks: [] });
  mkdirSync(path.join(files.dir, 'made-a-dir.json'));
  symlinkSync(path.join(files.dir, 'good.json'), path.join(files.dir, 'a-link.json'));
  execFileSync('mkfifo', [path.join(files.dir, 'a-fifo.json')]);
  t.same(files.list(), ['good'], 'the directory, the link and the FIFO are not listed');
  t.same(files.list(), ['good'], 'nor at the next list');
  const skipped = lines.filter((l) => /not a backup/.test(l.msg));
  t.equal(skipped.length, 3, 'one line for each entry skipped, not one for each list');
  t.match(
    skipped.map((l) => l.msg).join('\n'),
    /made-a-dir\.json.*directory[\s\S]*a-link\.json.*symbolic link|a-link\.json.*symbolic link[\s\S]*made-a-dir\.json.*directory/,
  );
});

t.test('remove and rename refuse a directory or a link under the name, by name, and keep it', async (t) => {
  const files = new BackupFiles(tempDir(t));
  files.write('good', { blocks: [] });
  mkdirSync(path.join(files.dir, 'made-a-dir.json'));
  symlinkSync(path.join(files.dir, 'good.json'), path.join(files.dir, 'a-link.json'));
  let refused: unknown;
  try {
    files.remove('made-a-dir');
  } catch (e) {
    refused = e;
  }
  t.ok(refused instanceof DamagedBackupError, 'remove of a directory is refused as unusable (a 422 at the API)');
  t.throws(() => files.remove('made-a-dir'), /stored backup 'made-a-dir'.*is a directory, not a file/);
  t.ok(existsSync(path.join(files.dir, 'made-a-dir.json')), 'the directory is kept');
  t.throws(() => files.remove('a-link'), /stored backup 'a-link'.*is a symbolic link, not a file/);
  t.ok(existsSync(path.join(files.dir, 'good.json')), 'the file the link points at is kept');
  t.throws(() => files.rename('good', 'made-a-dir'), /stored backup 'made-a-dir'.*is a directory, not a file/);
  t.throws(() => files.rename('made-a-dir', 'elsewhere'), /stored backup 'made-a-dir'.*is a directory, not a file/);
  t.same(
    readdirSync(files.dir).sort(),
    ['a-link.json', 'good.json', 'good.json.sha256', 'made-a-dir.json'],
    'nothing moved',
  );
  files.remove('missing');
  files.rename('good', 'renamed');
  t.same(files.list(), ['renamed'], 'a regular file is still renamed');
  files.remove('renamed');
  t.same(files.list(), [], 'and removed');
});

t.test('the scheduled prune passes a directory named as a scheduled backup and prunes the rest', async (t) => {
  const { log, lines } = logLines();
  const files = new BackupFiles(tempDir(t), log);
  mkdirSync(path.join(files.dir, 'auto-20261101T100000Z.json'), { recursive: true });
  for (const h of ['11', '12', '13']) files.write(`auto-20261101T${h}0000Z`, { blocks: [] });
  const sched = new BackupSchedule({ cron: '0 * * * *', keep: 2, files, save: () => ({ blocks: [] }), log });
  const saved = sched.runOnce();
  t.ok(saved, 'the run saved a backup and did not fail');
  t.same(
    lines.filter((l) => l.msg === 'scheduled backup failed'),
    [],
    'no failure is logged after a save that worked',
  );
  t.same(files.list(), ['auto-20261101T130000Z', saved], 'the older scheduled backups are pruned to the limit');
  t.ok(existsSync(path.join(files.dir, 'auto-20261101T100000Z.json')), 'the directory is left alone');
});

t.test('a symbolic link under a backup name is not followed: load and download refuse it by name', async (t) => {
  const { post, close, dataDir } = await startApp({}, { listen: false });
  t.teardown(close);
  await post('blocks/backup/stored/save', { name: 'good' });
  const dir = path.join(dataDir, 'backups');
  const outside = tempDir(t);
  // A JSON object elsewhere was served whole to any viewer; any other file had its first bytes
  // quoted in the 'not valid JSON' refusal.
  writeFileSync(path.join(outside, 'elsewhere.json'), JSON.stringify({ blocks: [], secret: 'hunter2' }));
  writeFileSync(path.join(outside, 'token'), 'hunter2-not-json');
  symlinkSync(path.join(outside, 'elsewhere.json'), path.join(dir, 'json-link.json'));
  symlinkSync(path.join(outside, 'token'), path.join(dir, 'token-link.json'));
  for (const name of ['json-link', 'token-link']) {
    for (const op of ['download', 'load']) {
      const res = await post(`blocks/backup/stored/${op}`, { name });
      t.equal(res.status, 422, `${op} of '${name}' is refused, not followed`);
      t.match(res.body.message, new RegExp(`stored backup '${name}'.*is a symbolic link, not a file`));
      t.notMatch(JSON.stringify(res.body), /hunter2/, 'nothing of the file it points at is given');
    }
  }
  t.same(
    (await post('blocks/backup/stored/all')).body.map((b: { name: string }) => b.name),
    ['good'],
    'only the real backup is offered',
  );
  t.equal((await post('blocks/backup/stored/download', { name: 'good' })).status, 200, 'a real backup still downloads');
});

t.test(
  'after a damaged start, a directory holding a before-damage name does not stop the backups being kept',
  async (t) => {
    const files = new BackupFiles(tempDir(t));
    for (const h of ['10', '11']) files.write(`auto-20261101T${h}0000Z`, { blocks: [] });
    mkdirSync(path.join(files.dir, 'before-damage-auto-20261101T100000Z.json'));
    const sched = new BackupSchedule({
      cron: '0 * * * *',
      keep: 2,
      files,
      save: () => ({ blocks: [] }),
      log: silentLogger,
      damaged: () => ({}),
    });
    t.doesNotThrow(() => sched.start(), 'the schedule starts (the rename onto the directory stopped it)');
    t.teardown(() => sched.stop());
    t.same(
      files.list().sort(),
      ['before-damage-auto-20261101T100000Z-2', 'before-damage-auto-20261101T110000Z'],
      'both are kept out of the prune; the one whose name a directory holds under the next free name',
    );
    t.ok(existsSync(path.join(files.dir, 'before-damage-auto-20261101T100000Z.json')), 'the directory is left alone');
  },
);
