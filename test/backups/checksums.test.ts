// A stored backup damaged inside a number (a setpoint 20 read back as 28 after a bit flipped on the
// SD card) is still JSON, and loaded silently: the fermenter then held the wrong temperature. Each
// backup the service writes has its SHA-256 beside it (NAME.json.sha256, as sha256sum writes it);
// a load or download of a file that no longer matches it is refused by name, and nothing changes.
import t, { type Test } from 'tap';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BackupSchedule } from '../../src/service/backup-schedule.js';
import { BackupFiles, DamagedBackupError } from '../../src/store/backup-files.js';
import { startApp } from '../helpers/app.js';
import { logLines } from '../helpers/log-lines.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function tempDir(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-backups-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The file's bytes with the last digit of the setpoint's 20 turned into an 8 (20 -> 28): still JSON. */
function flipSetpoint(file: string): void {
  const bytes = readFileSync(file);
  const at = bytes.indexOf('"value":20', bytes.indexOf('"storedSetting":'));
  if (at < 0) throw new Error(`no setpoint of 20 in ${bytes.toString()}`);
  bytes[at + '"value":2'.length] = '8'.charCodeAt(0);
  writeFileSync(file, bytes);
}

/** A started app with one setpoint (Beer Setpoint at 20), closed at the end of `t`. */
async function appWithSetpoint(t: Test) {
  const app = await startApp({}, { listen: false });
  t.teardown(app.close);
  await app.post('blocks/create', { id: 'Beer Setpoint', type: 'SetpointSensorPair', data: { storedSetting: 20 } });
  return app;
}

/** As appWithSetpoint, with the blocks saved as the stored backup `name`; `file` is its path. */
async function appWithSave(t: Test, name: string) {
  const app = await appWithSetpoint(t);
  t.equal((await app.post('blocks/backup/stored/save', { name })).status, 200, `saved as ${name}`);
  return { ...app, file: path.join(app.dataDir, 'backups', `${name}.json`) };
}

t.test('a saved backup with one digit flipped is refused by name, and the blocks are kept', async (t) => {
  const { post, file } = await appWithSave(t, 'before-winter');
  const sum = `${file}.sha256`;
  t.equal(
    readFileSync(sum, 'utf8'),
    `${sha256(readFileSync(file))}  before-winter.json\n`,
    'the SHA-256 of the exact bytes is beside it, as sha256sum writes it',
  );
  t.equal(statSync(sum).mode & 0o777, 0o600, 'private, as the backup is');

  flipSetpoint(file);
  await post('blocks/write', { id: 'Beer Setpoint', type: 'SetpointSensorPair', data: { storedSetting: 19 } });
  const before = (await post('blocks/all/read/stored')).body;
  for (const op of ['load', 'download']) {
    const res = await post(`blocks/backup/stored/${op}`, { name: 'before-winter' });
    t.equal(res.status, 422, `${op} of the changed backup is refused`);
    t.match(res.body.message, /stored backup 'before-winter' changed since it was saved/, `${op} names it`);
    t.match(res.body.message, /before-winter\.json\.sha256/, 'and says how to load it anyway');
  }
  t.same((await post('blocks/all/read/stored')).body, before, 'the blocks are as they were');
  t.equal((await post('blocks/read', { id: 'Beer Setpoint' })).body.data.storedSetting.value, 19);
  t.same(
    (await post('blocks/backup/stored/all')).body,
    [{ name: 'before-winter' }],
    'still listed (the user decides about it)',
  );

  // The brewer who trusts it (an edit of their own) removes the checksum: it loads as any file copied in.
  rmSync(sum);
  t.equal((await post('blocks/backup/stored/load', { name: 'before-winter' })).status, 200);
  t.equal((await post('blocks/read', { id: 'Beer Setpoint' })).body.data.storedSetting.value, 28);
});

t.test('a backup without a checksum (copied in by hand, an older release) loads as before', async (t) => {
  const { post, file } = await appWithSave(t, 'saved');
  const dir = path.dirname(file);
  copyFileSync(path.join(dir, 'saved.json'), path.join(dir, 'copied.json'));
  await post('blocks/write', { id: 'Beer Setpoint', type: 'SetpointSensorPair', data: { storedSetting: 19 } });
  t.equal((await post('blocks/backup/stored/download', { name: 'copied' })).status, 200);
  t.equal((await post('blocks/backup/stored/load', { name: 'copied' })).status, 200);
  t.equal((await post('blocks/read', { id: 'Beer Setpoint' })).body.data.storedSetting.value, 20);
  t.notOk(existsSync(path.join(dir, 'copied.json.sha256')), 'a load writes no checksum for it');
  // Saved over by the service, it has one from then on.
  await post('blocks/backup/stored/save', { name: 'copied' });
  t.equal(
    readFileSync(path.join(dir, 'copied.json.sha256'), 'utf8'),
    `${sha256(readFileSync(path.join(dir, 'copied.json')))}  copied.json\n`,
  );
});

t.test('an upload records the checksum of the bytes stored, which load back', async (t) => {
  const { post, dataDir } = await appWithSetpoint(t);
  const backup = (await post('blocks/backup/save')).body;
  t.equal((await post('blocks/backup/stored/upload', { ...backup, name: 'sent' })).status, 200);
  const file = path.join(dataDir, 'backups', 'sent.json');
  t.equal(readFileSync(`${file}.sha256`, 'utf8'), `${sha256(readFileSync(file))}  sent.json\n`);
  t.equal((await post('blocks/backup/stored/load', { name: 'sent' })).status, 200);
  flipSetpoint(file);
  t.equal((await post('blocks/backup/stored/load', { name: 'sent' })).status, 422);
});

t.test('a checksum file that holds no SHA-256 is refused by name, not taken as a match', async (t) => {
  const files = new BackupFiles(tempDir(t));
  files.write('kept', { blocks: [] });
  writeFileSync(path.join(files.dir, 'kept.json.sha256'), 'garbage\n');
  const refused = t.throws(() => files.read('kept'), /stored backup 'kept'.*kept\.json\.sha256 holds no SHA-256/);
  t.type(refused, DamagedBackupError, 'refused as a backup that cannot be used (a 422 at the API)');
});

t.test('the checksum files are not listed, nor warned of as entries skipped', async (t) => {
  const { log, lines } = logLines();
  const files = new BackupFiles(tempDir(t), log);
  files.write('one', { blocks: [] });
  files.write('two', { blocks: [] });
  t.same(files.list().sort(), ['one', 'two']);
  t.same(
    lines.filter((l) => /sha256/.test(JSON.stringify(l))),
    [],
    'no log line about them',
  );
});

t.test('remove, and the scheduled prune, remove the checksum with its backup', async (t) => {
  const files = new BackupFiles(tempDir(t));
  files.write('gone', { blocks: [] });
  files.remove('gone');
  t.same(readdirSync(files.dir), [], 'no checksum left behind');

  const sched = new BackupSchedule({
    cron: '0 * * * *',
    keep: 1,
    files,
    save: () => ({ blocks: [] }),
    log: logLines().log,
  });
  for (let i = 0; i < 3; i++) t.ok(sched.runOnce(), 'a run saved');
  const kept = files.list();
  t.equal(kept.length, 1, 'one kept');
  t.same(
    readdirSync(files.dir).sort(),
    [`${kept[0]}.json`, `${kept[0]}.json.sha256`],
    'the pruned ones went with theirs',
  );
});

t.test('a rename (the backups kept after a damaged database) moves the checksum with its backup', async (t) => {
  const files = new BackupFiles(tempDir(t));
  files.write('auto-20261128T080000Z', { blocks: [] });
  // A stale checksum under the new name (its backup removed by hand) must not stay to refuse it.
  writeFileSync(path.join(files.dir, 'before-damage-auto-20261128T080000Z.json.sha256'), `${'0'.repeat(64)}  x\n`);
  const sched = new BackupSchedule({
    cron: '0 * * * *',
    keep: 1,
    files,
    save: () => ({ blocks: [] }),
    log: logLines().log,
    damaged: () => true,
  });
  sched.start();
  t.teardown(() => sched.stop());
  const name = 'before-damage-auto-20261128T080000Z';
  t.same(readdirSync(files.dir).sort(), [`${name}.json`, `${name}.json.sha256`], 'both moved');
  t.equal(
    readFileSync(path.join(files.dir, `${name}.json.sha256`), 'utf8'),
    `${sha256(readFileSync(path.join(files.dir, `${name}.json`)))}  ${name}.json\n`,
    'naming the file under its new name',
  );
  t.same(files.read(name), { blocks: [] }, 'and it reads back');
  writeFileSync(path.join(files.dir, `${name}.json`), '{"blocks": [1]}');
  t.throws(() => files.read(name), /changed since it was saved/, 'still checked under its new name');
});

t.test('a checksum whose backup is gone, and a checksum write a kill cut short, are removed at start', async (t) => {
  const files = new BackupFiles(tempDir(t));
  files.write('kept', { blocks: [] });
  writeFileSync(path.join(files.dir, 'removed-by-hand.json.sha256'), `${'0'.repeat(64)}  removed-by-hand.json\n`);
  writeFileSync(path.join(files.dir, '.kept.json.sha256.0123456789abcdef.tmp'), '01');
  t.equal(files.sweepPartial(), 2);
  t.same(readdirSync(files.dir).sort(), ['kept.json', 'kept.json.sha256']);
  t.same(files.read('kept'), { blocks: [] });
});

t.test('a directory under a checksum name (install -d given its path) is refused by name, not a 500', async (t) => {
  const { post, file } = await appWithSave(t, 'kept');
  const saved = readFileSync(file);
  rmSync(`${file}.sha256`);
  mkdirSync(`${file}.sha256`);
  for (const op of ['save', 'upload']) {
    const body = op === 'save' ? { name: 'kept' } : { ...(await post('blocks/backup/save')).body, name: 'kept' };
    const res = await post(`blocks/backup/stored/${op}`, body);
    t.equal(res.status, 422, `${op} is refused as a file that cannot be used`);
    t.match(res.body.message, /stored backup 'kept'.*kept\.json\.sha256 is a directory/, `${op} names it`);
  }
  t.same(readFileSync(file), saved, 'the backup under the name is kept');
  t.same(readdirSync(path.dirname(file)).sort(), ['kept.json', 'kept.json.sha256'], 'no temporary file left');

  const files = new BackupFiles(path.dirname(path.dirname(file)));
  t.type(
    t.throws(() => files.remove('kept')),
    DamagedBackupError,
    'a remove is refused as well (a 422, the prune passes it)',
  );
  t.ok(existsSync(file), 'and removes nothing');
});
