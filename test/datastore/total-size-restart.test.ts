// The datastore's bound (DATASTORE_BYTES) is kept by a count of the stored bytes that each write
// updates, taken from the table when the store opens. A count taken wrong at a start (too low: a
// store past the bound grows on; too high: a save refused with room left) showed only after a
// restart, which no test made. Here the built CLI on a real data dir is filled to a few bytes of
// room, stopped (cleanly, then with kill -9, the last writes in the -wal) and started again: a
// write that would pass the bound is refused with 507 naming the same bytes used, one that fits
// the room left is taken, and so is one that shrinks the store.
// tags: slow (the built CLI started three times)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { DATASTORE_BYTES } from '../../src/shared/limits.js';
import { postJson, startCli, type RunningCli } from '../helpers/cli.js';

const doc = (id: string, bytes: number) => ({ namespace: 'big', id, x: 'x'.repeat(bytes) });
const stored = (d: object) => Buffer.byteLength(JSON.stringify(d));
/** The bytes used that a 507 names. */
const usedOf = (message: string) => Number(/its documents take (\d+) bytes/.exec(message)?.[1]);

t.test('a store filled to a few bytes of room keeps its bound across a restart', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-bound-restart-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const args = ['--data-dir', dataDir, '--mqtt-port', '0'];
  let cli: RunningCli = await startCli(args, {}, t);
  t.teardown(() => cli.child.kill('SIGKILL'));
  const ds = (op: string, body: unknown) => postJson(`${cli.base}/history/datastore/${op}`, body);

  for (let i = 0; i < 16; i++) t.equal((await ds('set', { value: doc(`d${i}`, 1_000_000) })).status, 200);
  const probe = await ds('set', { value: doc('probe', 1_000_000) });
  t.equal(probe.status, 507, 'the 17th megabyte does not fit');
  // A fresh data dir holds no documents of the service's own: what is used is what was written.
  const used = usedOf(probe.body.message);
  const written = Array.from({ length: 16 }, (_, i) => stored(doc(`d${i}`, 1_000_000))).reduce((a, b) => a + b);
  t.equal(used, written, 'the bytes used are those written');
  // Padded to 10 bytes of room.
  const padBytes = DATASTORE_BYTES - used - stored(doc('pad', 0)) - 10;
  t.equal((await ds('set', { value: doc('pad', padBytes) })).status, 200, 'padded');
  let usedNow = DATASTORE_BYTES - 10;

  /** After a start: past the bound is 507 naming the bytes used as before the stop; the room left and a shrink are taken. */
  const check = async (how: string) => {
    const room = DATASTORE_BYTES - usedNow;
    const refused = await ds('set', { value: doc('pad', padBytes + room + 1) });
    t.equal(refused.status, 507, `${how}: a write one byte past the bound is refused`);
    t.equal(usedOf(refused.body.message ?? ''), usedNow, `${how}: the 507 names the bytes used as before the stop`);
    t.equal((await ds('set', { value: doc('pad', padBytes + room) })).status, 200, `${how}: the room left is taken`);
    t.equal((await ds('set', { value: doc('pad', padBytes) })).status, 200, `${how}: a shrinking write is taken`);
  };

  // A clean stop.
  cli.child.kill('SIGTERM');
  await cli.exited;
  cli = await startCli(args, {}, t);
  await check('after a clean stop');

  // kill -9: the writes since the last checkpoint are in the -wal only.
  t.equal((await ds('set', { value: doc('d1', 1000) })).status, 200, 'a megabyte given back');
  t.equal((await ds('set', { value: doc('d16', 990_000) })).status, 200, 'most of it taken again');
  usedNow += stored(doc('d16', 990_000)) - 999_000;
  cli.child.kill('SIGKILL');
  await cli.exited;
  cli = await startCli(args, {}, t);
  await check('after kill -9');
});
