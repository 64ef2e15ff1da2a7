// tags: slow (the built service started on database files a bad card or a power cut damaged)
// A damaged edgeblocks.db is set aside, not started on and not a reason to exit: the service
// starts with what could be read of it, says what was lost, and keeps the damaged file.
import t, { type Test } from 'tap';
import Database from '../../src/store/sqlite.js';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { postJson, startCli, type RunningCli } from '../helpers/cli.js';

const PAGE = 4096;

async function filled(t: Test): Promise<{ dataDir: string; args: string[] }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-damaged-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const args = ['--data-dir', dataDir, '--mqtt-port', '0', '--hardware', 'sim'];
  const cli = await startCli(args, {}, t);
  for (const id of ['Beer Sensor', 'Fridge Sensor'])
    t.equal(
      (await postJson(`${cli.base}/edge-one/blocks/create`, { id, type: 'TempSensorMock', data: {} })).status,
      201,
    );
  const doc = { namespace: 'brewblox-ui-store', id: 'dashboard-1', title: 'Fermenter' };
  t.equal((await postJson(`${cli.base}/history/datastore/set`, { value: doc })).status, 200);
  cli.child.kill('SIGTERM');
  t.equal(await cli.exited, 0);
  return { dataDir, args };
}

/** Writes junk over `bytes` bytes at `offset` of the database file. */
function spoil(dataDir: string, offset: number, bytes: number): void {
  const fd = openSync(path.join(dataDir, 'edgeblocks.db'), 'r+');
  writeSync(fd, Buffer.alloc(bytes, 0xa5), 0, bytes, offset);
  closeSync(fd);
}

function rootPage(dataDir: string, name: string): number {
  const db = new Database(path.join(dataDir, 'edgeblocks.db'), { readonly: true });
  try {
    return db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').pluck().get(name) as number;
  } finally {
    db.close();
  }
}

async function status(cli: RunningCli): Promise<any> {
  return (await fetch(`${cli.base}/edge-one/system/status`)).json();
}

async function ids(cli: RunningCli): Promise<string[]> {
  return (await postJson(`${cli.base}/edge-one/blocks/all/read`)).body.map((b: { id: string }) => b.id);
}

async function dashboard(cli: RunningCli): Promise<unknown> {
  const res = await postJson(`${cli.base}/history/datastore/get`, {
    namespace: 'brewblox-ui-store',
    id: 'dashboard-1',
  });
  return res.body?.value?.title;
}

/** The active alert of `kind`, once the alerts have started (waits a few seconds at most). */
async function alert(cli: RunningCli, kind: string): Promise<any> {
  for (let i = 0; i < 50; i++) {
    const body = (await (await fetch(`${cli.base}/edge-one/alerts`)).json()) as { active: { kind: string }[] };
    const found = body.active.find((a) => a.kind === kind);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

function kept(dataDir: string): string[] {
  return readdirSync(dataDir).filter((f) => /^edgeblocks\.db\.damaged-\d{8}T\d{6}Z$/.test(f));
}

t.test('a database whose header is gone: the service starts, the file is kept, status says so', async (t) => {
  const { dataDir, args } = await filled(t);
  spoil(dataDir, 0, 16);
  const spoiled = readFileSync(path.join(dataDir, 'edgeblocks.db'));
  const cli = await startCli(args, {}, t);
  t.teardown(() => cli.child.kill('SIGKILL'));
  t.equal(kept(dataDir).length, 1, 'the damaged file is set aside under a name of its own');
  t.same(readFileSync(path.join(dataDir, kept(dataDir)[0]!)), spoiled, 'byte for byte');
  const damaged = (await status(cli)).damagedDatabase;
  t.match(damaged, { keptAs: path.join(dataDir, kept(dataDir)[0]!), reason: /not a database/ });
  t.ok(damaged.incomplete.includes('blocks'), 'status says blocks were lost');
  t.match(cli.output(), /database was damaged \(file is not a database\); kept as edgeblocks\.db\.damaged-/);
  t.equal(
    (await postJson(`${cli.base}/edge-one/blocks/create`, { id: 'new', type: 'TempSensorMock', data: {} })).status,
    201,
  );
  t.match(
    (await alert(cli, 'database-damaged'))?.text,
    /set aside as edgeblocks\.db\.damaged-.*rows were lost from .*blocks.*stored backup/,
    'an alert tells the user',
  );
});

t.test('a damaged page of the blocks table loses those rows only: documents are kept', async (t) => {
  const { dataDir, args } = await filled(t);
  spoil(dataDir, (rootPage(dataDir, 'blocks') - 1) * PAGE, 64);
  const cli = await startCli(args, {}, t);
  t.teardown(() => cli.child.kill('SIGKILL'));
  t.equal(await dashboard(cli), 'Fermenter', 'the dashboard document is still there');
  const damaged = (await status(cli)).damagedDatabase;
  t.same(damaged.incomplete, ['blocks'], 'only the blocks table lost rows');
  t.ok(damaged.salvaged.documents >= 1);
  t.equal(kept(dataDir).length, 1);
});

t.test('a damaged index is found at start and rebuilt: nothing is lost', async (t) => {
  const { dataDir, args } = await filled(t);
  spoil(dataDir, (rootPage(dataDir, 'sqlite_autoindex_blocks_1') - 1) * PAGE + 8, 200);
  let cli = await startCli(args, {}, t);
  t.teardown(() => cli.child.kill('SIGKILL'));
  t.same(
    (await ids(cli)).filter((id) => id.endsWith('Sensor')),
    ['Beer Sensor', 'Fridge Sensor'],
    'every block',
  );
  t.equal(await dashboard(cli), 'Fermenter');
  const damaged = (await status(cli)).damagedDatabase;
  t.same(damaged.incomplete, [], 'no rows lost');
  t.equal(damaged.salvaged.blocks, 2);
  t.match((await alert(cli, 'database-damaged'))?.text, /every row could be read/);
  t.equal(
    (await postJson(`${cli.base}/edge-one/blocks/create`, { id: 'Beer Sensor', type: 'TempSensorMock', data: {} }))
      .status,
    409,
    'the rebuilt unique index works',
  );
  // The next start finds a whole database and says nothing of damage.
  cli.child.kill('SIGKILL');
  await cli.exited;
  cli = await startCli(args, {}, t);
  t.equal((await status(cli)).damagedDatabase, null);
  t.equal(kept(dataDir).length, 1);
  t.ok(existsSync(path.join(dataDir, 'edgeblocks.db')));
});
