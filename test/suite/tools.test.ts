// Issue 50.3: a test that needs a program says so first, in one line naming the Debian package.
// Every program a test starts by name is in test/helpers/tools.ts and checked (needTools) in the
// file that starts it; .ci/run and docs/development.md install every package in that table.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { shellBlocks, markdownPages } from '../helpers/markdown.js';
import { missingToolsLine, TOOLS, type Tool } from '../helpers/tools.js';

/** Part of every Debian system (Essential: yes), so never checked. */
const ESSENTIAL_PROGRAMS = ['sh', '/usr/bin/env', 'sleep', 'true', 'chown', 'chmod', 'tar'];
const ESSENTIAL_PACKAGES = ['bash', 'bsdutils', 'coreutils', 'mount'];

const testFiles = readdirSync(path.join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => `test/${f}`);
const source = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const needed = (text: string) =>
  [...text.matchAll(/needTools\(([^)]*)\)/g)].flatMap((m) => [...m[1]!.matchAll(/'([^']+)'/g)].map((n) => n[1]));

t.test('every program a test starts by name is checked first in that file', async (t) => {
  let found = 0;
  for (const file of testFiles) {
    const text = source(file);
    const started = [...text.matchAll(/\b(?:spawn|spawnSync|spawnOwned|execFileSync|execFile)\(\s*'([^']+)'/g)].map(
      (m) => m[1]!,
    );
    for (const program of new Set(started)) {
      if (ESSENTIAL_PROGRAMS.includes(program)) continue;
      found++;
      t.ok(program in TOOLS, `${file} starts ${program}: it is in test/helpers/tools.ts with its package`);
      t.ok(needed(text).includes(program), `${file} calls needTools('${program}')`);
    }
  }
  t.ok(found >= 10, `programs found (${found})`);
});

t.test("the walkthrough checks the programs the docs' demo commands use", async (t) => {
  const commands = markdownPages()
    .flatMap((page) => shellBlocks(page))
    .filter((b) => b.run === 'demo')
    .flatMap((b) => b.code.replace(/\\\n/g, ' ').split(/\n|\||&&|;/))
    .map((line) => line.trim().split(/\s+/)[0]!)
    .filter((word) => /^[a-z][\w-]*$/.test(word));
  const walkthrough = needed(source('test/e2e/readme-walkthrough.test.ts'));
  t.ok(commands.length >= 10, 'the demo commands');
  for (const program of new Set(commands)) {
    if (ESSENTIAL_PROGRAMS.includes(program)) continue;
    t.ok(program in TOOLS, `${program} is in test/helpers/tools.ts`);
    t.ok(walkthrough.includes(program), `the walkthrough calls needTools('${program}')`);
  }
});

t.test('.ci/run and the development page install every package in the table', async (t) => {
  const ci = source('.ci/run');
  const dev = /apt-get install ([^`]+)`/.exec(source('docs/development.md').replace(/\n/g, ' '))?.[1] ?? '';
  for (const pkg of new Set(Object.values(TOOLS))) {
    if (ESSENTIAL_PACKAGES.includes(pkg)) continue;
    t.match(ci, `need+=(${pkg})`, `.ci/run installs ${pkg}`);
    t.ok(dev.split(/\s+/).includes(pkg), `docs/development.md's apt-get line has ${pkg}`);
  }
});

t.test('a missing program: one line naming it and its package, exit code 1, before anything runs', async (t) => {
  const empty = mkdtempSync(path.join(tmpdir(), 'edgeblocks-nopath-'));
  t.teardown(() => rmSync(empty, { recursive: true, force: true }));
  t.equal(
    missingToolsLine(['mosquitto_sub', 'mosquitto_pub', 'curl'] as Tool[], { PATH: empty }),
    'this test needs mosquitto_sub, mosquitto_pub, curl: apt-get install mosquitto-clients curl (Debian; .ci/run installs every test tool)',
  );
  t.equal(missingToolsLine(['bash'], { PATH: '/usr/bin:/bin' }), undefined, 'nothing to say when all are there');
  const tools = pathToFileURL(path.join(ROOT, 'test/helpers/tools.ts')).href;
  const res = spawnSync(
    process.execPath,
    [
      ...process.execArgv,
      '--input-type=module',
      '-e',
      `import { needTools } from '${tools}'; needTools('mosquitto_sub'); console.log('went on');`,
    ],
    { env: { ...process.env, PATH: empty }, encoding: 'utf8', timeout: limit(30000), killSignal: 'SIGKILL' },
  );
  t.equal(res.status, 1, 'exit code 1: a failure, not a skip');
  t.equal(
    res.stderr,
    'this test needs mosquitto_sub: apt-get install mosquitto-clients (Debian; .ci/run installs every test tool)\n',
    'one line on stderr',
  );
  t.equal(res.stdout, '', 'nothing ran after it');
});
