// Logs a person can read: one line per event on a terminal (the built CLI under a pty made by
// util-linux `script`), JSON lines through a pipe, journald lines under systemd, and the
// --log-format flag overriding the choice.
// tags: slow (the built CLI under a pty and systemd)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createLogger } from '../../src/log.js';
import { prettyLine } from '../../src/log/pretty.js';
import { CLI } from '../helpers/cli.js';
import { assertBuilt } from '../mqtt/fixtures.js';
import { limit } from '../helpers/limits.js';
import { needTools } from '../helpers/tools.js';

needTools('script');

assertBuilt();
t.setTimeout(limit(240_000));

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Start the CLI (under a pty when `tty`), wait for the listening line, stop it with SIGINT. */
async function runCli(t: Test, args: string[], tty: boolean, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-log-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const argv = [
    process.execPath,
    CLI,
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
    ...args,
  ];
  const childEnv: NodeJS.ProcessEnv = { ...process.env, JOURNAL_STREAM: '', ...env };
  if (!env.JOURNAL_STREAM) delete childEnv.JOURNAL_STREAM;
  delete childEnv.NO_COLOR;
  const child = tty
    ? spawn('script', ['-qfec', argv.map(shq).join(' '), '/dev/null'], {
        env: childEnv,
        stdio: ['pipe', 'pipe', 'pipe'],
      })
    : spawn(argv[0]!, argv.slice(1), { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const deadline = Date.now() + limit(60_000);
  while (!/mqtt connected to/.test(out) && Date.now() < deadline && child.exitCode === null)
    await new Promise((r) => setTimeout(r, 50));
  if (tty) child.stdin!.write('\x03');
  else child.kill('SIGINT');
  await exited;
  return out;
}

t.test('on a terminal: one readable line per event', async (t) => {
  const out = await runCli(t, [], true);
  const lines = out.split(/\r?\n/).filter(Boolean);
  const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
  const listening = lines.map(plain).find((l) => l.includes('http listening on'));
  t.match(
    listening,
    /^\d\d:\d\d:\d\d INFO {2}http listening on http:\/\/0\.0\.0\.0:\d+ \(docs: \/edge-one\/api\/doc\)/,
  );
  t.ok(
    lines.some((l) => l.includes('\x1b[32mINFO ')),
    'levels are coloured on a terminal',
  );
  t.notOk(
    lines.some((l) => plain(l).trimStart().startsWith('{')),
    'no JSON line',
  );
  t.ok(
    lines.map(plain).some((l) => /\d\d:\d\d:\d\d INFO {2}shutting down signal=SIGINT/.test(l)),
    'the shutdown too',
  );
});

t.test('--log-format json on a terminal, and a pipe without the flag: JSON lines', async (t) => {
  for (const [args, tty] of [
    [['--log-format', 'json'], true],
    [[], false],
  ] as const) {
    const out = await runCli(t, [...args], tty);
    const lines = out.split(/\r?\n/).filter((l) => l.startsWith('{'));
    const rec = lines.map((l) => JSON.parse(l)).find((r) => /http listening on/.test(r.msg));
    t.ok(rec, `JSON listening record (${tty ? 'tty' : 'pipe'})`);
    t.equal(rec.level, 30);
    t.type(rec.time, 'number');
  }
});

t.test('--log-format pretty through a pipe; journald keeps its <N> prefix', async (t) => {
  const out = await runCli(t, ['--log-format', 'pretty'], false);
  t.match(out, /^\d\d:\d\d:\d\d INFO {2}http listening on /m);
  t.notMatch(out, /\x1b\[/, 'no colour codes into a pipe');
  const journal = await runCli(t, [], false, { JOURNAL_STREAM: '8:1234' });
  t.match(journal, /^<6>\{"level":30,.*"msg":"http listening on /m);
  const bad = await new Promise<{ code: number | null; err: string }>((resolve) => {
    const c = spawn(process.execPath, [CLI, '--log-format', 'fancy'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    c.stderr.on('data', (d: Buffer) => (err += d.toString()));
    c.on('exit', (code) => resolve({ code, err }));
  });
  t.equal(bad.code, 2);
  t.match(bad.err, /logFormat \(flag --log-format\): must be 'auto', 'json' or 'pretty', got "fancy"/);
});

t.test('prettyLine: extras, errors, and secrets redacted at the source', async (t) => {
  const lines: string[] = [];
  const log = createLogger('debug', {}, { write: (s: string) => lines.push(s), isTTY: false }, 'pretty');
  log.warn({ port: 443, code: 'EACCES', module: 'mqtt' }, 'gateway cannot listen');
  log.error({ err: new Error('disk full') }, 'backup failed');
  log.info({ password: 'hunter2', headers: { authorization: 'Bearer ebt_x' } }, 'login');
  t.match(lines[0], /^\d\d:\d\d:\d\d WARN {2}gateway cannot listen port=443 code=EACCES\n$/);
  t.match(lines[1], /^\d\d:\d\d:\d\d ERROR backup failed: disk full\n$/);
  t.notMatch(lines[2], /hunter2|ebt_x/);
  t.match(lines[2], /password=\[redacted\]/);
  t.equal(lines.length, 3, 'one line per event');
  t.equal(prettyLine('not json'), 'not json\n');
  t.match(prettyLine(JSON.stringify({ level: 30, time: 0, msg: 'a\nb' })), / a b\n$/, 'never two lines');
});
