// `edgeblocks check` read only the database's header, so a datastore already past its 16 MiB
// bound (filled by a release before it) was said at the service's start but not by the check an
// upgrade runs first. The check says it now, in the start's words (one function), reading a copy:
// it makes no file in the data dir (it runs as root beside the service), does not mind the
// service's lock, and a database it cannot read is no failure of the check.
// The built CLI as a child process, on a real SQLite file written past the bound.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, readdirSync, rmSync, statSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { DATASTORE_BYTES } from '../../src/shared/limits.js';
import { startApp } from '../helpers/app.js';
import { CLI } from '../helpers/cli.js';
import { logLines } from '../helpers/log-lines.js';

const doc = (id: string) => ({ namespace: 'big', id, x: 'x'.repeat(1_000_000) });

function check(dataDir: string, tmp?: string): { status: number | null; stderr: string; stdout: string } {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('EDGEBLOCKS_')));
  if (tmp !== undefined) env.TMPDIR = tmp;
  const r = spawnSync(process.execPath, [CLI, 'check', '--data-dir', dataDir], { env, encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

const files = (dir: string) =>
  readdirSync(dir)
    .sort()
    .map((f) => `${f} ${statSync(path.join(dir, f)).mtimeMs}`);

/**
 * A data dir whose store is past the bound, as a release before the bound could leave it (written
 * here past it on purpose); `then` runs on the app before it closes.
 */
async function storePastBound(t: Test, then?: (app: Awaited<ReturnType<typeof startApp>>) => void): Promise<string> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-check-size-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const app = await startApp({}, { listen: false, dataDir });
  app.app.documents.setMany(
    Array.from({ length: 18 }, (_, i) => doc(`d${i}`)),
    { unbounded: true },
  );
  then?.(app);
  await app.close();
  return dataDir;
}

t.test('a store past the bound: the check warns as the start does, touching nothing in the data dir', async (t) => {
  const dataDir = await storePastBound(t);

  const stopped = files(dataDir);
  const r = check(dataDir);
  t.equal(r.status, 0, `the check passes: ${r.stderr}`);
  const line = r.stderr.split('\n').find((l) => /datastore/.test(l));
  t.ok(line, `the check warns of the store: ${r.stderr}`);
  t.match(
    line,
    new RegExp(`^edgeblocks: warning: the datastore's documents take \\d+ bytes, past the ${DATASTORE_BYTES}\\b`),
  );
  t.match(line, /the largest namespaces: 'big' \d+ bytes/, 'naming the namespace that takes the most');
  t.same(files(dataDir), stopped, 'no file made or changed in the data dir (no -wal, no -shm)');

  // The service running (its lock held, its -wal open): the same, in the start's very words.
  const { log, lines } = logLines('warn');
  const running = await startApp({}, { listen: false, dataDir, log });
  t.teardown(() => running.close());
  const started = lines.find((l) => /datastore/.test(l.msg))?.msg;
  t.ok(started, 'the start warns');
  const beside = check(dataDir);
  t.equal(beside.status, 0, `beside the running service, the check passes: ${beside.stderr}`);
  t.equal(
    beside.stderr.split('\n').find((l) => /datastore/.test(l)),
    `edgeblocks: warning: ${started}`,
    'the check says what the start says',
  );
});

t.test('a store within the bound, or a database that cannot be read: no warning, no failure', async (t) => {
  // Room made: the file stays larger than the bound (its free pages), the documents within it.
  const dataDir = await storePastBound(t, (app) =>
    app.app.documents.deleteMany(Array.from({ length: 5 }, (_, i) => ({ namespace: 'big', id: `d${i}` }))),
  );
  t.ok(statSync(path.join(dataDir, 'edgeblocks.db')).size > DATASTORE_BYTES, 'the file is larger than the bound');
  const within = check(dataDir);
  t.equal(within.status, 0, within.stderr);
  t.notMatch(within.stderr, /datastore/, 'within the bound: nothing said of it');

  // Its pages past the header overwritten (a card gone bad): the check neither fails nor warns.
  const file = path.join(dataDir, 'edgeblocks.db');
  const fd = openSync(file, 'r+');
  const junk = Buffer.alloc(1 << 20, 0xa5);
  for (let at = 4096; at < statSync(file).size; at += junk.length) writeSync(fd, junk, 0, junk.length, at);
  closeSync(fd);
  const tmp = mkdtempSync(path.join(tmpdir(), 'edgeblocks-check-tmp-'));
  t.teardown(() => rmSync(tmp, { recursive: true, force: true }));
  const broken = check(dataDir, tmp);
  t.equal(broken.status, 0, `a damaged database is the start's to report: ${broken.stderr}`);
  t.notMatch(broken.stderr, /datastore|Error|at /, 'no warning, no stack');
  t.same(readdirSync(tmp), [], 'its copy is removed');
});

t.test('a copy that cannot be made is said, naming why, and the check still passes', async (t) => {
  const dataDir = await storePastBound(t);
  const tmp = mkdtempSync(path.join(tmpdir(), 'edgeblocks-check-tmp-'));
  t.teardown(() => rmSync(tmp, { recursive: true, force: true }));
  const read = check(dataDir, tmp);
  t.match(read.stderr, /past the \d+/, 'with room, the store past its bound is said');
  t.same(readdirSync(tmp), [], 'and the copy it read is removed');

  const aFile = path.join(tmp, 'a-file');
  writeFileSync(aFile, '');
  for (const [where, code] of [
    [aFile, 'ENOTDIR'],
    [path.join(tmp, 'no-such-dir'), 'ENOENT'],
  ] as const) {
    const r = check(dataDir, where);
    t.equal(r.status, 0, `TMPDIR ${path.basename(where)}: the check passes (${r.stderr})`);
    const line = r.stderr.split('\n').find((l) => /datastore/.test(l));
    t.match(line, /^edgeblocks: warning: the datastore's size was not checked/, 'a note says the size was not checked');
    t.match(line, code, `naming the reason (${code})`);
    t.match(line, where, 'and where the copy was to go');
  }
  t.same(readdirSync(tmp), ['a-file'], 'nothing left behind');
});
