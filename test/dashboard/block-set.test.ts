// The event stream's `blockSet`: the id of the blocks' numbering, which the dashboard keeps beside
// the nids it remembers (the graph following renames). A backup keeps its nids, and a fresh data
// dir numbers from 100 again, so a nid alone does not say which block it is: Beer Sensor (nid 100)
// set up by hand and Fridge Sensor (nid 100) from another controller's backup looked like one
// block renamed. The id stays the same through renames and restarts, and is another after a backup
// load (in the load's own patch, before any state) and on another data dir. A real app on real
// SQLite data dirs, the stream read over a socket.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startApp, type RunningApp } from '../helpers/app.js';
import { readEvents as readStream, type StreamEvent } from '../helpers/event-stream.js';

type Event = StreamEvent;

/** Reads the stream until `until` says stop; `onOpen` runs once the first event came (event-stream.ts). */
const readEvents = async (running: RunningApp, until: (ev: Event[]) => boolean, onOpen?: () => Promise<void>) =>
  (await readStream(`${running.base}/events`, until, onOpen)).events;

const firstState = async (running: RunningApp) =>
  (await readEvents(running, (ev) => ev.length >= 1))[0]!.data.blockSet as string;

t.test('the block set stays through renames and restarts, and changes with a backup load', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-set-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  let running = await startApp({ emitInterval: '200', history: 'off' }, { dataDir });
  t.teardown(() => running.close());
  await running.post('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: {} });
  const set = await firstState(running);
  t.match(set, /^[0-9a-f-]{36}$/, 'the first state has one');

  const renamed = await readEvents(
    running,
    (ev) => ev.some((e) => e.event === 'patch'),
    async () => {
      t.equal((await running.post('blocks/rename', { existing: 'Beer Sensor', desired: 'Fridge' })).status, 200);
    },
  );
  t.equal(renamed.find((e) => e.event === 'patch')!.data.blockSet, set, 'a rename keeps it');

  await running.close();
  running = await startApp({ emitInterval: '200', history: 'off' }, { dataDir });
  t.equal(await firstState(running), set, 'a restart keeps it');

  // Another controller's backup: its first block has nid 100 too.
  const backup = (await running.post('blocks/backup/save')).body as { blocks: Array<{ id: string; nid: number }> };
  const other = {
    ...backup,
    blocks: backup.blocks.map((b) => (b.id === 'Fridge' ? { ...b, id: 'Fridge Sensor' } : b)),
  };
  const loaded = await readEvents(
    running,
    (ev) => ev.some((e) => e.event === 'patch'),
    async () => {
      t.equal((await running.post('blocks/backup/load', other)).status, 200);
    },
  );
  const patch = loaded.find((e) => e.event === 'patch')!.data;
  t.ok(patch.deleted.includes('Fridge'), 'the load deleted the block');
  t.ok(
    patch.changed.some((b: { id: string; nid: number }) => b.id === 'Fridge Sensor' && b.nid === 100),
    'and brought another under its nid',
  );
  t.not(patch.blockSet, set, "the load's own patch has a new block set");
  t.equal(await firstState(running), patch.blockSet, 'kept after it');
  await running.close();
  running = await startApp({ emitInterval: '200', history: 'off' }, { dataDir });
  t.equal(await firstState(running), patch.blockSet, 'and through a restart');
});

t.test('another data dir (a reinstall) has another block set', async (t) => {
  const one = await startApp({ emitInterval: '200', history: 'off' });
  t.teardown(() => one.close());
  const two = await startApp({ emitInterval: '200', history: 'off' });
  t.teardown(() => two.close());
  t.not(await firstState(one), await firstState(two));
});

t.test('a create that gives a nid a deleted block had starts a new block set; a fresh nid does not', async (t) => {
  // Beer Sensor (nid 100) deleted and Fridge Sensor made with nid 100: the same nid, the same
  // type, another block, which a graph kept of Beer Sensor took for it renamed.
  const running = await startApp({ emitInterval: '200', history: 'off' });
  t.teardown(() => running.close());
  const made = await running.post('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: {} });
  const nid = (made.body as { nid: number }).nid;
  const set = await firstState(running);
  t.equal(
    (await running.post('blocks/create', { id: 'Spare', nid: nid + 50, type: 'TempSensorMock', data: {} })).status,
    201,
  );
  t.equal(await firstState(running), set, 'a nid never used keeps it');
  t.equal((await running.post('blocks/delete', { id: 'Beer Sensor' })).status, 200);
  t.equal(await firstState(running), set, 'a delete keeps it');
  const again = await readEvents(
    running,
    (ev) => ev.some((e) => e.event === 'patch'),
    async () => {
      t.equal(
        (await running.post('blocks/create', { id: 'Fridge Sensor', nid, type: 'TempSensorMock', data: {} })).status,
        201,
      );
    },
  );
  const patch = again.find((e) => e.event === 'patch')!.data;
  t.not(patch.blockSet, set, "the create's own patch has a new block set");
});
