// A `host` the service cannot listen on (an address of another machine, a name that does not
// resolve) stops the start with one line naming the setting and the fix, exit code 2, as a busy
// port does. It said "edgeblocks: cannot start: listen EADDRNOTAVAIL: address not available
// 203.0.113.7" (or "getaddrinfo ENOTFOUND ..."), exit 1, naming no setting, and logged a stack.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { CLI } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-bind-host-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** A start of the built CLI on emulated hardware, every port free, on `host`. */
const start = (host: string) =>
  spawnSync(
    process.execPath,
    [CLI, '--hardware', 'sim', '--data-dir', path.join(dir, 'data'), '--port', '0', '--https-port', '0'],
    {
      env: { ...process.env, EDGEBLOCKS_HOST: host, EDGEBLOCKS_MQTT_PORT: '0', EDGEBLOCKS_LOG_FORMAT: 'json' },
      encoding: 'utf8',
      timeout: limit(20000),
      killSignal: 'SIGKILL',
    },
  );

// 203.0.113.7 is a documentation address (TEST-NET-3), on no machine; .invalid never resolves.
for (const [host, why] of [
  ['203.0.113.7', /not an address of this machine \(EADDRNOTAVAIL\)/],
  ['edgeblocks-test.invalid', /does not resolve to an address \((ENOTFOUND|EAI_AGAIN)\)/],
] as const)
  t.test(`host ${host}: one line naming host, exit 2`, async (t) => {
    const res = start(host);
    t.equal(res.status, 2, res.stderr);
    const lines = res.stderr.split('\n').filter((l) => l.startsWith('edgeblocks:'));
    t.equal(lines.length, 1, res.stderr);
    t.match(lines[0], new RegExp(`^edgeblocks: configuration error: host: "${host.replaceAll('.', '\\.')}" `));
    t.match(lines[0], why);
    t.match(lines[0], /0\.0\.0\.0/, 'names the default, every address');
    t.notMatch(res.stdout + res.stderr, /"stack"/, 'no stack trace');
  });
