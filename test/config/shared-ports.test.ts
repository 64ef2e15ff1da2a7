// The embedded MQTT broker cannot listen on the HTTP port or the HTTPS gateway's: a start given
// the same port for both stopped (exit 2) with "MQTT broker port X is in use (is another
// edgeblocks running?)", naming no second instance because there was none, while `edgeblocks
// check` called the same settings valid (exit 0), so the installer's check let through a config
// that left the controller down. Both now refuse it with one line naming the two settings.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { CLI } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-shared-ports-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
// There, so check has nothing to warn of.
mkdirSync(path.join(dir, 'data'), { mode: 0o700 });

/** A port free at the moment (so a start that does listen fails only on its own second listen). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const run = (args: string[]) => {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    timeout: limit(20_000),
    killSignal: 'SIGKILL',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, EDGEBLOCKS_LOG_FORMAT: 'json' },
  });
  return { code: r.status, lines: r.stderr.split('\n').filter((l) => l.startsWith('edgeblocks:')), err: r.stderr };
};

const base = () => ['--data-dir', path.join(dir, 'data'), '--host', '127.0.0.1', '--hardware', 'sim'];

for (const [other, flag, name] of [
  ['port', '--port', 'HTTP'],
  ['httpsPort', '--https-port', 'HTTPS gateway'],
] as const)
  t.test(`${flag} X --mqtt-port X: check and start refuse it with the same line`, async (t) => {
    const x = await freePort();
    const ports = other === 'port' ? ['--port', `${x}`, '--https-port', '0'] : ['--port', '0', '--https-port', `${x}`];
    const args = [...base(), ...ports, '--mqtt-port', `${x}`];
    const check = run(['check', ...args]);
    t.equal(check.code, 2, check.err);
    t.equal(check.lines.length, 1, check.err);
    t.match(check.lines[0], /^edgeblocks: configuration error: mqttPort: /);
    t.match(check.lines[0], new RegExp(`${x} is also the ${name} port \\(${other}, ${flag}\\)`));
    t.match(check.lines[0], /--mqtt-port/, 'names the fix');
    const start = run(args);
    t.equal(start.code, 2, start.err);
    t.same(start.lines, check.lines, 'the start gives the same one line');

    // With an external broker nothing listens on the MQTT port: the same ports are fine.
    const external = run(['check', ...args, '--mqtt-url', 'mqtt://127.0.0.1:1883']);
    t.equal(external.code, 0, external.err);
  });

t.test('port 0 (a free one each) is no clash', async (t) => {
  const r = run(['check', ...base(), '--port', '0', '--https-port', '0', '--mqtt-port', '0']);
  t.equal(r.code, 0, r.err);
});
