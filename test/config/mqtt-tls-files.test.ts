// The TLS files of an external broker (mqttCa, mqttCert, mqttKey) are read at the start; one
// that cannot be read is a configuration error, as an unreadable config file is: one line naming
// the setting, why and what to do, exit 2. It was "edgeblocks: cannot start: mqttCa: cannot read
// /etc/edgeblocks/ca.pem (ENOENT)", exit 1, with a stack in the log.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { CLI } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-mqtt-tls-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** A start of the built CLI on sim hardware against a TLS broker (never reached), with `env`. */
const start = (env: NodeJS.ProcessEnv) =>
  spawnSync(
    process.execPath,
    [CLI, '--hardware', 'sim', '--data-dir', path.join(dir, 'data'), '--port', '0', '--https-port', '0'],
    {
      env: { ...process.env, EDGEBLOCKS_MQTT_URL: 'mqtts://127.0.0.1:1', EDGEBLOCKS_LOG_FORMAT: 'json', ...env },
      encoding: 'utf8',
      timeout: limit(20000),
      killSignal: 'SIGKILL',
    },
  );

t.test('a CA file that is not there: one line naming mqttCa, exit 2', async (t) => {
  const ca = path.join(dir, 'ca.pem');
  const res = start({ EDGEBLOCKS_MQTT_CA: ca });
  t.equal(res.status, 2, res.stderr);
  const lines = res.stderr.split('\n').filter((l) => l.startsWith('edgeblocks:'));
  t.same(lines, [
    `edgeblocks: configuration error: mqttCa: cannot read ${ca}: ENOENT (there is no such file); give the path of the CA certificate file`,
  ]);
  t.notMatch(res.stdout + res.stderr, /"stack"/, 'no stack trace');
});

t.test('a client key that is a directory: named as such', async (t) => {
  const key = path.join(dir, 'keys');
  mkdirSync(key);
  const res = start({ EDGEBLOCKS_MQTT_KEY: key });
  t.equal(res.status, 2, res.stderr);
  t.match(
    res.stderr,
    `edgeblocks: configuration error: mqttKey: cannot read ${key}: EISDIR (it is a directory); give the path of the client key file`,
  );
});
