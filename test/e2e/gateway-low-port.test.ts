// A user who starts the service by hand (`node dist/src/main.js`, `npm start`) as a normal user
// meets the TLS gateway's default port 443, which needs CAP_NET_BIND_SERVICE: a warning, and the
// service runs. The warning tells them what Troubleshooting tells them (another --https-port, or 0;
// the systemd unit grants the capability), not to setcap the node binary, which hands every Node
// program on the machine the right to bind low ports. Run as `nobody` when the test is root.
// tags: slow (the built service started as a user starts it)
import t from 'tap';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { readPage } from '../helpers/markdown.js';

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
const base = mkdtempSync(path.join(tmpdir(), 'edgeblocks-lowport-'));
chmodSync(base, 0o755);
if (isRoot) chownSync(base, NOBODY, NOBODY);
t.teardown(() => rmSync(base, { recursive: true, force: true }));

// tap hooks the node processes a test spawns (NODE_OPTIONS) to write into .tap/, which `nobody` may not.
const childEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(NODE_OPTIONS|TAP|_TAPJS)/.test(k))),
  HOME: base,
  EDGEBLOCKS_LOG_FORMAT: 'json',
};

t.test('port 443 without the capability: a warning that says what Troubleshooting says', async (t) => {
  const unprivileged = Number(readFileSync('/proc/sys/net/ipv4/ip_unprivileged_port_start', 'utf8'));
  t.ok(unprivileged > 443, `port 443 needs the capability here (ip_unprivileged_port_start ${unprivileged})`);
  const args = ['--hardware', 'sim', '--port', '0', '--mqtt-port', '0', '--https-port', '443'];
  const child = spawn('/usr/bin/env', ['-u', 'NODE_OPTIONS', process.execPath, CLI, ...args, '--data-dir', 'data'], {
    cwd: base,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(isRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  t.teardown(() => child.kill('SIGKILL'));
  let out = '';
  const warned = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no gateway warning within the limit:\n${out}`)), limit(30000));
    const look = (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n').find((l) => /https gateway cannot listen/.test(l));
      if (line && /http listening/.test(out)) {
        clearTimeout(timer);
        resolve(JSON.parse(line).msg as string);
      }
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('exit', (code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
  const msg = await warned;
  t.match(msg, /^https gateway cannot listen on 0\.0\.0\.0:443 \(EACCES\); REST and \/eventbus stay available/);
  t.match(msg, /--https-port 8443/, 'names another port');
  t.match(msg, /--https-port 0/, 'and how to turn the gateway off');
  t.match(msg, /systemd unit grants/, 'says the installed service has the capability');
  t.notMatch(msg, /setcap/, 'no advice to setcap the node binary');
  const page = readPage('docs/troubleshooting.md');
  const quoted = /\*\*`(https gateway cannot listen on [^`]*)`\*\*/.exec(page)?.[1];
  t.ok(quoted, 'Troubleshooting quotes the warning');
  t.equal(msg, quoted, 'word for word');
});
