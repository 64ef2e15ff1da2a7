// A data dir that is not there is made at the start (a first start needs it), but it was made
// without a word: a mistyped --data-dir (/var/lib/edgeblock) started a controller with no blocks and
// nothing said why. The start that makes it now logs one info line naming the new directory; a start
// on a dir that is there says nothing of it.
// tags: slow (the built service)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startCli } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { assertBuilt } from '../mqtt/fixtures.js';

assertBuilt();
t.setTimeout(limit(90_000));

t.test('the start that creates the data dir says so, once', async (t) => {
  const top = mkdtempSync(path.join(tmpdir(), 'edgeblocks-data-dir-created-'));
  t.teardown(() => rmSync(top, { recursive: true, force: true }));
  const dataDir = path.join(top, 'not', 'yet', 'there');
  const args = ['--data-dir', dataDir, '--hardware', 'sim', '--mqtt-port', '0'];

  // Said before the start listens (startCli waits for that line).
  const first = await startCli(args, {}, t);
  const line = /^.*created the data dir.*$/m.exec(first.output())?.[0] ?? '';
  t.match(line, `created the data dir ${dataDir}: it did not exist`, 'naming the new directory');
  t.match(line, /"level":30/, 'as an info line');
  t.match(line, /check --data-dir/, 'saying what to check if it should have been there');
  first.child.kill('SIGTERM');
  await first.exited;
  t.equal(first.output().match(/created the data dir/g)?.length, 1, 'said once');

  const second = await startCli(args, {}, t);
  second.child.kill('SIGTERM');
  await second.exited;
  t.notMatch(second.output(), /created the data dir/, 'a start on a dir that is there says nothing of it');
});
