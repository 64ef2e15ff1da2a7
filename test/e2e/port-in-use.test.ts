// A second instance on a busy port (issue 14.3): one line naming the port and the fix, exit
// code 2, no stack trace; the same for the demo script.
// tags: slow (the built service and the demo started as a user starts them)
import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, DEMO, ROOT } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { readPage } from '../helpers/markdown.js';

const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-busy-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

async function holdPort(t: Test): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

function run(script: string, args: string[]) {
  return spawnSync(process.execPath, [script, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: limit(30000),
    killSignal: 'SIGKILL',
  });
}

function assertOneLine(t: Test, res: ReturnType<typeof run>, message: RegExp) {
  t.equal(res.status, 2, `exit code 2 (stderr: ${res.stderr})`);
  const lines = res.stderr.trim().split('\n');
  t.equal(lines.length, 1, `one line on stderr: ${res.stderr}`);
  t.match(lines[0], message);
  t.notMatch(res.stderr + res.stdout, /at .*\.js:\d+|"stack"/, 'no stack trace');
}

t.test('a busy HTTP port, and Troubleshooting quotes the message as the service writes it', async (t) => {
  const port = await holdPort(t);
  const res = run(CLI, [
    '--port',
    String(port),
    '--https-port',
    '0',
    '--mqtt-port',
    '0',
    '--data-dir',
    path.join(dir, 'a'),
  ]);
  assertOneLine(
    t,
    res,
    new RegExp(
      `^edgeblocks: HTTP port ${port} on 0\\.0\\.0\\.0 is in use .*stop the other instance, or choose another port with --port \\(default 5000; 0 picks a free one\\)$`,
    ),
  );
  const said = res.stderr.trim().replaceAll(String(port), '5000');
  t.ok(readPage('docs/troubleshooting.md').includes(`**\`${said}\`.**`), `docs/troubleshooting.md quotes: ${said}`);
});

t.test('a busy embedded broker port', async (t) => {
  const port = await holdPort(t);
  const res = run(CLI, [
    '--port',
    '0',
    '--https-port',
    '0',
    '--mqtt-port',
    String(port),
    '--data-dir',
    path.join(dir, 'b'),
  ]);
  assertOneLine(
    t,
    res,
    new RegExp(
      `^edgeblocks: MQTT broker port ${port} .* is in use .*--mqtt-port \\(default 1883\\); or use the broker already there with --mqtt-url mqtt://127\\.0\\.0\\.1:${port}$`,
    ),
  );
});

t.test('the demo script on a busy port', async (t) => {
  const port = await holdPort(t);
  const res = run(DEMO, [
    '--port',
    String(port),
    '--https-port',
    '0',
    '--mqtt-port',
    '0',
    '--data-dir',
    path.join(dir, 'demo'),
  ]);
  assertOneLine(
    t,
    res,
    new RegExp(
      `^demo: HTTP port ${port} on 0\\.0\\.0\\.0 is in use .*--port \\(default 5000; 0 picks a free one\\); with npm, flags go after --: npm run demo -- --port 5080$`,
    ),
  );
});
