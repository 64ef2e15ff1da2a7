// One service per data dir (issue 24.3): a second start on the same dir exits 2 with a line
// naming the dir and the pid that holds it, before it opens hardware or restores blocks; the
// lock dies with its process (kill -9 included); a start that fails (a busy port) does not
// drive any output safe, since another instance may be driving them.
// tags: slow (the built service started as a user starts it)
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, DEMO, ROOT, startCli } from '../helpers/cli.js';
import { killAndWait } from '../helpers/children.js';
import { limit } from '../helpers/limits.js';

const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-lock-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

function run(script: string, args: string[]) {
  return spawnSync(process.execPath, [script, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: limit(30000),
    killSignal: 'SIGKILL',
  });
}

const outputSafe = /output safe/;

t.test('a second instance on the same data dir, then kill -9 of the first', async (t) => {
  const dataDir = path.join(dir, 'shared');
  const first = await startCli(['--mqtt-port', '0', '--hardware', 'sim', '--data-dir', dataDir], {}, t);
  for (const script of [CLI, DEMO]) {
    const second = run(script, [
      '--port',
      '0',
      '--https-port',
      '0',
      '--mqtt-port',
      '0',
      '--hardware',
      'sim',
      '--data-dir',
      dataDir,
    ]);
    const name = path.basename(script);
    t.equal(second.status, 2, `${name}: exit code 2 (stderr: ${second.stderr})`);
    t.equal(second.stderr.trim().split('\n').length, 1, `${name}: one line: ${second.stderr}`);
    t.match(
      second.stderr,
      `the data dir ${dataDir} is in use by another edgeblocks (pid ${first.child.pid})`,
      `${name}: names the dir and the pid`,
    );
    t.notMatch(second.stdout, /hardware|output safe|http listening/, `${name}: no hardware opened, no output touched`);
  }

  await killAndWait(first.child, 'SIGKILL');
  const after = await startCli(['--mqtt-port', '0', '--hardware', 'sim', '--data-dir', dataDir], {}, t);
  t.ok((await fetch(`${after.base}/edge-one/system/status`)).ok, 'after kill -9 of the holder, a start succeeds');
});

t.test('a start that fails on a busy port leaves outputs alone', async (t) => {
  const running = await startCli(
    ['--mqtt-port', '0', '--hardware', 'sim', '--data-dir', path.join(dir, 'running')],
    {},
    t,
  );
  for (const script of [CLI, DEMO]) {
    const name = path.basename(script);
    const failed = run(script, [
      '--port',
      String(running.port),
      '--https-port',
      '0',
      '--mqtt-port',
      '0',
      '--hardware',
      'sim',
      '--data-dir',
      path.join(dir, `busy-${name}`),
    ]);
    t.equal(failed.status, 2, `${name}: exit code 2 (stderr: ${failed.stderr})`);
    t.match(failed.stderr, /is in use/, `${name}: the busy port is named`);
    t.notMatch(
      failed.stdout,
      outputSafe,
      `${name}: no "output safe" line: ${failed.stdout.split('\n').filter((l) => outputSafe.test(l)).length} lines`,
    );
    t.match(
      failed.stdout,
      /stopped before control started: outputs not touched/,
      `${name}: says it left the outputs alone`,
    );
  }
});
