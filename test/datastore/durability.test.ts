// Every datastore reply comes after the change is durable: kill -9 the built CLI right after
// the replies and read everything back from a fresh process. Needs `npx tsc -p tsconfig.json`.
// tags: slow (kill -9 of the built CLI)
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { postJson, startCli } from '../helpers/cli.js';

t.test('documents survive kill -9 exactly as the replies said', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-ds-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const args = ['--data-dir', dataDir, '--mqtt-port', '0'];
  let cli = await startCli(args, {}, t);
  const ds = (op: string, body: unknown) => postJson(`${cli.base}/history/datastore/${op}`, body);

  const many = Array.from({ length: 50 }, (_, i) => ({
    namespace: 'bulk:items',
    id: `item-${i}`,
    i,
    payload: { nested: [i, String(i)] },
  }));
  t.equal((await ds('mset', { values: many })).status, 200);
  t.equal((await ds('set', { value: { namespace: 'edge-one', id: 'units', temperature: 'degF' } })).status, 200);
  t.equal((await ds('set', { value: { namespace: '', id: 'solo', text: 'héllo' } })).status, 200);
  t.equal((await ds('set', { value: { namespace: 'r', id: 'x', v: 1 } })).status, 200);
  t.equal((await ds('set', { value: { namespace: 'r', id: 'x', v: 2 } })).status, 200);
  t.same((await ds('mdelete', { namespace: 'bulk:items', filter: 'item-1?' })).body, { count: 10 });
  t.same((await ds('delete', { namespace: 'bulk:items', id: 'item-0' })).body, { count: 1 });
  t.equal(
    (
      await ds('mset', {
        values: [
          { namespace: 'lost', id: 'a' },
          { namespace: 'lost', id: 'b!' },
        ],
      })
    ).status,
    422,
  );
  t.equal(
    (
      await postJson(`${cli.base}/edge-one/blocks/create`, {
        id: 'sp',
        type: 'SetpointSensorPair',
        data: { storedSetting: 68 },
      })
    ).status,
    201,
  );
  const before = (await ds('mget', { namespace: '', filter: '*' })).body.values;
  cli.child.kill('SIGKILL');
  await cli.exited;

  cli = await startCli(args, {}, t);
  t.teardown(() => cli.child.kill('SIGKILL'));
  const after = (await ds('mget', { namespace: '', filter: '*' })).body.values;
  t.same(after, before, 'every document, as it was');
  t.equal(after.filter((d: { namespace: string }) => d.namespace === 'bulk:items').length, 39, '50 - 10 - 1');
  t.same(
    (await ds('get', { namespace: 'r', id: 'x' })).body.value,
    { namespace: 'r', id: 'x', v: 2 },
    'the last write won',
  );
  t.same((await ds('get', { namespace: '', id: 'solo' })).body.value.text, 'héllo');
  t.same((await ds('get', { namespace: 'lost', id: 'a' })).body, { value: null }, 'the refused mset left nothing');
  const sp = (await postJson(`${cli.base}/edge-one/blocks/read`, { id: 'sp' })).body;
  t.same(
    sp.data.storedSetting,
    { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'degF', value: 68 },
    'the units document applies at start-up',
  );
});
