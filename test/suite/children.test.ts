// The test helpers kill what they start on every path (issue 18): a CLI that never reports its
// port fails within the (scaled) limit and is gone afterwards; a test that throws after a start
// leaves nothing behind; a test process that exits early takes its children with it.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { startScript, ROOT } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-children-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in CLI: writes its pid, optionally reports a port, then runs until killed. */
function stub(name: string, reportPort: boolean): { script: string; pid: () => number } {
  const pidFile = path.join(dir, `${name}.pid`);
  const script = path.join(dir, `${name}.mjs`);
  writeFileSync(
    script,
    [
      `import { writeFileSync } from 'node:fs';`,
      `writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));`,
      reportPort ? `console.log('http listening on 127.0.0.1:4321');` : `console.log('starting, but never listening');`,
      `setInterval(() => {}, 1000);`,
    ].join('\n'),
  );
  return { script, pid: () => Number(readFileSync(pidFile, 'utf8')) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw e;
  }
}

async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > end) return false;
    await sleep(10);
  }
  return true;
}

t.test('a CLI that never prints its port fails within the limit and is killed', async (t) => {
  const s = stub('silent', false);
  const started = Date.now();
  // Long enough for the stub's node to start and write its line on a loaded 2-core machine
  // (1.5 s was not: the line and the pid file were not there yet at load 20).
  const startLimit = limit(6000);
  const err = await startScript(s.script, [], {}, t, startLimit).then(
    () => null,
    (e: Error) => e,
  );
  const took = Date.now() - started;
  t.ok(err, 'the start fails');
  t.match(err?.message, /reporting its HTTP port: not seen within \d+ ms/);
  t.match(err?.message, /starting, but never listening/, 'the error carries what the process wrote');
  t.ok(took >= startLimit && took < startLimit + limit(3000), `failed after the limit, not much later (${took} ms)`);
  t.notOk(alive(s.pid()), 'no process is left');
});

/** Runs a module (TypeScript helpers importable) in its own node process, as tap would. */
function runModule(name: string, lines: string[]) {
  const file = path.join(dir, `${name}.mts`);
  writeFileSync(file, lines.join('\n'));
  const loader = process.execArgv.filter((a) => a.includes('@tapjs/typescript'));
  const started = Date.now();
  const res = spawnSync(process.execPath, [...loader, file], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: limit(60000),
    killSignal: 'SIGKILL',
  });
  return { ...res, took: Date.now() - started };
}

const helper = (p: string) => JSON.stringify(pathToFileURL(path.join(ROOT, p)).href);

t.test('a test that throws after the start kills the CLI at its teardown, and the file ends', async (t) => {
  const s = stub('thrower', true);
  const res = runModule('thrower', [
    `import t from ${JSON.stringify(import.meta.resolve('tap'))};`,
    `const { startScript } = await import(${helper('test/helpers/cli.ts')});`,
    `t.test('starts the CLI, then throws', async (t) => {`,
    `  const cli = await startScript(${JSON.stringify(s.script)}, [], {}, t);`,
    `  t.equal(cli.port, 4321);`,
    `  throw new Error('something in the test threw');`,
    `});`,
  ]);
  t.not(res.status, 0, 'the test file fails');
  t.equal(res.signal, null, `the file ended by itself (${res.took} ms)`);
  t.match(res.stdout, /something in the test threw/, res.stderr);
  t.ok(existsSync(path.join(dir, 'thrower.pid')), 'the stub started');
  t.ok(await goneWithin(s.pid(), limit(5000)), 'the stub is gone');
});

t.test('a test process that exits without cleaning up takes its children along', async (t) => {
  const s = stub('orphan', true);
  const res = runModule('orphan', [
    `const { startScript } = await import(${helper('test/helpers/cli.ts')});`,
    `await startScript(${JSON.stringify(s.script)}, []);`,
    `process.exit(3);`,
  ]);
  t.equal(res.status, 3, res.stderr);
  t.ok(existsSync(path.join(dir, 'orphan.pid')), 'the stub started');
  t.ok(await goneWithin(s.pid(), limit(5000)), 'the stub died with the process that started it');
});
