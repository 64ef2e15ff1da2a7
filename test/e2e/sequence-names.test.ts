// A Brewblox Spark backup whose Sequence names its targets as the Spark service writes them (in
// quotes when the name has a space) loads into the built service and runs them; a rename of a
// target follows into the lines, and a kill -9 right after the rename keeps it.
// tags: slow (the built service killed and started again)
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { postJson, startCli } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const q = (unit: string, value: number) => ({ __bloxtype: 'Quantity', unit, value });
const lnk = (type: string, id: string | null) => ({ __bloxtype: 'Link', type, id });
const BEST = "Brewer's 'Best'";
const BEER = '🍺 Beer 🍷';
const RENAMED = 'Beer, "Kettle" 2';

const pair = (id: string, nid: number) => ({
  id,
  nid,
  type: 'SetpointSensorPair',
  data: { sensorId: lnk('TempSensorInterface', 'Beer Sensor'), storedSetting: q('degC', 10), enabled: true },
});

t.test('a Brewblox backup with quoted targets runs them; a rename survives a kill -9', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-e2e-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const args = ['--data-dir', dataDir, '--mqtt-port', '0'];
  let cli = await startCli(args, {}, t);
  let api = (p: string) => `${cli.base}/edge-one/${p}`;
  const backup = {
    blocks: [
      { id: 'Beer Sensor', nid: 100, type: 'TempSensorMock', data: { setting: q('degC', 20), connected: true } },
      pair(BEST, 101),
      pair(BEER, 102),
      {
        id: 'Brew Seq',
        nid: 103,
        type: 'Sequence',
        data: {
          enabled: true,
          instructions: [
            `SET_SETPOINT target='${BEST}', setting=21.0C`,
            'WAIT',
            `SET_SETPOINT target='${BEER}', setting=22.0C`,
            `WAIT_SETPOINT target='${BEER}', precision=50.0dC`,
            'WAIT',
          ],
          variablesId: lnk('Variables', null),
          overrideState: false,
          activeInstruction: 1,
          storeMode: 'AT_RESTORE_INSTRUCTION_RESTORE_ENABLED',
          activeInstructionStartedAt: '2026-11-30T10:00:00Z',
        },
      },
    ],
    store: [{ keys: ['Brew Seq', 103], data: {} }],
  };
  const loaded = await postJson(api('blocks/backup/load'), backup);
  t.equal(loaded.status, 200, JSON.stringify(loaded.body));
  t.same(loaded.body.failures, [], 'every block loaded');
  const seq = async () => (await postJson(api('blocks/read'), { id: 'Brew Seq' })).body.data;
  const setting = async (id: string) => (await postJson(api('blocks/read'), { id })).body.data.storedSetting.value;
  t.equal((await seq()).activeInstruction, 1, 'it resumes at the instruction of the backup');
  t.equal(await setting(BEST), 10, 'the instruction before it does not run again');
  const run = async (from: number, to: number) => {
    await postJson(api('blocks/patch'), {
      id: 'Brew Seq',
      type: 'Sequence',
      data: { activeInstruction: from, overrideState: true },
    });
    const deadline = Date.now() + limit(10000);
    while ((await seq()).activeInstruction < to && (await seq()).error === 'NONE' && Date.now() < deadline)
      await sleep(100);
    return seq();
  };
  const first = await run(0, 1);
  t.equal(first.error, 'NONE', first.errorMessage);
  t.equal(await setting(BEST), 21, 'the quoted name with quotes in it is its block');
  const second = await run(2, 4);
  t.equal(second.error, 'NONE', second.errorMessage);
  t.equal(await setting(BEER), 22, 'the quoted name with a space and emoji is its block');

  const renamed = await postJson(api('blocks/rename'), { existing: BEER, desired: RENAMED });
  t.equal(renamed.status, 200, JSON.stringify(renamed.body));
  cli.child.kill('SIGKILL');
  await cli.exited;

  cli = await startCli(args, {}, t);
  t.teardown(() => cli.child.kill('SIGKILL'));
  api = (p: string) => `${cli.base}/edge-one/${p}`;
  t.same((await seq()).instructions.slice(2, 4), [
    `SET_SETPOINT target='${RENAMED}', setting=22.0C`,
    `WAIT_SETPOINT target='${RENAMED}', precision=50.0dC`,
  ]);
  await postJson(api('blocks/patch'), { id: RENAMED, type: 'SetpointSensorPair', data: { storedSetting: 5 } });
  const again = await run(2, 4);
  t.equal(again.error, 'NONE', again.errorMessage);
  t.equal(await setting(RENAMED), 22, 'after the rename and the kill the sequence sets the renamed block');
});
