// A restart of the built service in the middle of a sequence's WAIT_DURATION resumes the wait
// with the time it had stored (the run before stores it every minute; here its record is given
// that time by hand, as a run of 59 min 58 s would have left it), instead of starting it over.
// A backup load that restores a sequence at its first instruction (its store mode) stores that
// reset at once: a kill -9 right after the load leaves the record at the first instruction, time 0.
// tags: slow (the built service stopped and started again)
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from '../../src/store/sqlite.js';
import { postJson, startCli } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('a restart 59 min 58 s into a 1 h wait: the next step runs seconds after the start', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-e2e-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const args = ['--data-dir', dataDir, '--mqtt-port', '0'];
  let cli = await startCli(args, {}, t);
  let api = (p: string) => `${cli.base}/edge-one/${p}`;
  await postJson(api('blocks/create'), { id: 'sensor', type: 'TempSensorMock', data: { setting: 20 } });
  await postJson(api('blocks/create'), {
    id: 'sp',
    type: 'SetpointSensorPair',
    data: { enabled: true, storedSetting: 20, 'sensorId<>': 'sensor' },
  });
  const created = await postJson(api('blocks/create'), {
    id: 'seq',
    type: 'Sequence',
    data: { instructions: ['WAIT_DURATION duration=1h', 'SET_SETPOINT target=sp, setting=4C', 'WAIT'] },
  });
  t.equal(created.status, 201);
  cli.child.kill('SIGTERM');
  t.equal(await cli.exited, 0);

  const db = new Database(path.join(dataDir, 'edgeblocks.db'));
  const row = db.prepare("SELECT data FROM blocks WHERE id = 'seq'").get() as { data: string };
  const data = JSON.parse(row.data);
  data.elapsed = { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'second', value: 3598, readonly: true };
  db.prepare("UPDATE blocks SET data = ? WHERE id = 'seq'").run(JSON.stringify(data));
  db.close();

  cli = await startCli(args, {}, t);
  t.teardown(() => cli.child.kill('SIGKILL'));
  api = (p: string) => `${cli.base}/edge-one/${p}`;
  const seq = async () => (await postJson(api('blocks/read'), { id: 'seq' })).body.data;
  const deadline = Date.now() + limit(15000);
  while ((await seq()).activeInstruction < 2 && Date.now() < deadline) await sleep(200);
  t.equal((await seq()).activeInstruction, 2, 'the wait ended within seconds of the start');
  const sp = (await postJson(api('blocks/read'), { id: 'sp' })).body.data;
  t.equal(sp.storedSetting.value, 4, 'and the step after it ran');
});

t.test("a backup load, then kill -9: the store mode's reset to the first instruction is in the record", async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-e2e-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const args = ['--data-dir', dataDir, '--mqtt-port', '0'];
  const cli = await startCli(args, {}, t);
  t.teardown(() => cli.child.kill('SIGKILL'));
  const api = (p: string) => `${cli.base}/edge-one/${p}`;
  const loaded = await postJson(api('blocks/backup/load'), {
    blocks: [
      {
        id: 'seq',
        nid: 100,
        type: 'Sequence',
        data: {
          storeMode: 'AT_FIRST_INSTRUCTION_NEVER_ENABLED',
          instructions: ['WAIT_DURATION duration=1h', 'WAIT_DURATION duration=2h', 'WAIT'],
          activeInstruction: 1,
          elapsed: { __objtype: 'Quantity', unit: 'second', value: 5400, readonly: true },
        },
      },
    ],
  });
  t.equal(loaded.status, 200);
  const seq = (await postJson(api('blocks/read'), { id: 'seq' })).body.data;
  t.same([seq.activeInstruction, seq.elapsed.value, seq.enabled], [0, 0, false], 'the load reads the reset');
  cli.child.kill('SIGKILL');
  await cli.exited;

  const db = new Database(path.join(dataDir, 'edgeblocks.db'), { readonly: true });
  const row = db.prepare("SELECT data FROM blocks WHERE id = 'seq'").get() as { data: string };
  db.close();
  const data = JSON.parse(row.data);
  t.same([data.activeInstruction, data.elapsed.value, data.enabled], [0, 0, false], 'and the record holds it');
});
