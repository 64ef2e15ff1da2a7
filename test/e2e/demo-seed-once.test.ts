// `npm run demo` seeds its blocks (scripts/demo-blocks.json) into a fresh data dir, once. It
// seeded whenever the data dir held no user block, so a user who deleted the demo's blocks to
// start their own setup, and started the demo again, got them all back. The demo is started as
// `npm run demo` starts it (node scripts/demo.js, on the built service) and its blocks deleted
// through the REST API.
// tags: slow (the demo started as a user starts it, twice)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import Database from '../../src/store/sqlite.js';
import { postJson, ROOT, startDemo } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const SEED: string[] = JSON.parse(readFileSync(path.join(ROOT, 'scripts/demo-blocks.json'), 'utf8')).blocks.map(
  (b: { id: string }) => b.id,
);

/** The demo on `dataDir` until it is stopped, with the block ids it has once it listens. */
async function demo(t: Test, dataDir: string) {
  const cli = await startDemo(['--port', '0', '--mqtt-port', '0', '--https-port', '0', '--data-dir', dataDir], {}, t);
  const all = await postJson(`${cli.base}/edge-one/blocks/all/read`);
  if (all.status !== 200) throw new Error(`blocks/all/read: ${all.status} ${JSON.stringify(all.body)}`);
  const ids = (all.body as Array<{ id: string }>).map((b) => b.id);
  const stop = async () => {
    cli.child.kill('SIGTERM');
    const timer = setTimeout(() => cli.child.kill('SIGKILL'), limit(10_000));
    const code = await cli.exited;
    clearTimeout(timer);
    return code;
  };
  return { cli, ids, stop };
}

function freshDataDir(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-demo-seed-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'demo-data');
}

const readIds = async (base: string) =>
  ((await postJson(`${base}/edge-one/blocks/all/read`)).body as Array<{ id: string }>).map((b) => b.id);

t.test('blocks deleted on the demo stay deleted when the demo starts again', async (t) => {
  const dataDir = freshDataDir(t);

  const first = await demo(t, dataDir);
  t.same(
    SEED.filter((id) => !first.ids.includes(id)),
    [],
    'a fresh data dir: every demo block is there',
  );
  t.match(first.cli.output(), /demo: seeded \d+ blocks/, 'the demo says it seeded them');
  const deleted = await postJson(`${first.cli.base}/edge-one/blocks/all/delete`);
  t.equal(deleted.status, 200, `blocks/all/delete (${JSON.stringify(deleted.body)})`);
  const left = await readIds(first.cli.base);
  t.same(
    SEED.filter((id) => left.includes(id)),
    [],
    'no demo block is left',
  );
  t.equal(await first.stop(), 0, 'the demo stops cleanly');

  for (const start of ['the next start', 'the start after']) {
    const again = await demo(t, dataDir);
    t.same(
      SEED.filter((id) => again.ids.includes(id)),
      [],
      `${start}: the deleted demo blocks are not back (blocks: ${again.ids.join(', ')})`,
    );
    t.notMatch(again.cli.output(), /demo: seeded/, `${start}: nothing seeded`);
    t.equal(await again.stop(), 0);
  }
});

t.test('a data dir an older demo seeded (no note of it) is not seeded again once its blocks are deleted', async (t) => {
  const dataDir = freshDataDir(t);
  const first = await demo(t, dataDir);
  t.equal(await first.stop(), 0);
  // An older release's demo-data: its blocks, and no settings row saying it was seeded.
  const db = new Database(path.join(dataDir, 'edgeblocks.db'));
  t.equal(db.prepare("DELETE FROM settings WHERE key = 'demo_seeded'").run().changes, 1, 'the note was there');
  db.close();

  const upgraded = await demo(t, dataDir);
  t.same(
    SEED.filter((id) => !upgraded.ids.includes(id)),
    [],
    'its blocks are kept',
  );
  t.notMatch(upgraded.cli.output(), /demo: seeded/, 'nothing seeded over them');
  t.equal((await postJson(`${upgraded.cli.base}/edge-one/blocks/all/delete`)).status, 200);
  t.equal(await upgraded.stop(), 0);

  const again = await demo(t, dataDir);
  t.same(
    SEED.filter((id) => again.ids.includes(id)),
    [],
    `the deleted demo blocks are not back (blocks: ${again.ids.join(', ')})`,
  );
  t.equal(await again.stop(), 0);
});
