// The URL settings (mqttUrl, publicUrl, historyUrl) are read as URLs when the configuration is
// checked, as the alert channels' URLs are: a pattern that looks only at the start let a port past
// 65535, a host left out or an unclosed bracket through. `edgeblocks check` called such a
// configuration valid; the service then stopped with "cannot start: Invalid URL" (mqttUrl,
// publicUrl), a TypeError's stack in the log, exit 1, or (historyUrl) ran with every history write
// failing. Now each is refused naming its key and where it came from, exit 2.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { loadConfig } from '../../src/config.js';
import { CLI } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-urls-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const check = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [CLI, 'check', '--data-dir', path.join(dir, 'data'), ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: limit(15000),
    killSignal: 'SIGKILL',
  });

const BAD: Array<[string, string[], NodeJS.ProcessEnv, RegExp]> = [
  [
    'an MQTT broker port past 65535',
    ['--mqtt-url', 'mqtt://127.0.0.1:99999'],
    {},
    /^edgeblocks: configuration error: mqttUrl \(flag --mqtt-url\): must be 'embedded' or a URL like mqtt:\/\/host:1883, got "mqtt:\/\/127\.0\.0\.1:99999"$/,
  ],
  [
    'an MQTT broker with no host',
    [],
    { EDGEBLOCKS_MQTT_URL: 'mqtt://:1883' },
    /^edgeblocks: configuration error: mqttUrl \(env EDGEBLOCKS_MQTT_URL\): must be 'embedded' or a URL like/,
  ],
  [
    'a dashboard address past port 65535',
    ['--public-url', 'http://fermenter-2.local:99999/'],
    {},
    /^edgeblocks: configuration error: publicUrl \(flag --public-url\): must be an http:\/\/ or https:\/\/ URL, got "http:\/\/fermenter-2\.local:99999\/"$/,
  ],
  [
    'a VictoriaMetrics address with an unclosed bracket',
    ['--history-url', 'http://[::1:8428'],
    {},
    /^edgeblocks: configuration error: historyUrl \(flag --history-url\): must be an http:\/\/ or https:\/\/ URL, got "http:\/\/\[::1:8428"$/,
  ],
];

for (const [what, args, env, message] of BAD)
  t.test(`${what}: refused naming the setting, exit 2`, async (t) => {
    const res = check(args, env);
    t.equal(res.status, 2, res.stdout + res.stderr);
    const lines = res.stderr.trim().split('\n');
    t.equal(lines.length, 1, `one line: ${res.stderr}`);
    t.match(lines[0], message);
  });

t.test('in the file too, and the URLs that work are taken', async (t) => {
  const file = path.join(dir, 'bad.json');
  writeFileSync(file, '{"historyUrl": "http://victoria:84280"}');
  t.throws(() => loadConfig({ config: file, dataDir: dir }, {}), {
    message: 'historyUrl (file): must be an http:// or https:// URL, got "http://victoria:84280"',
  });
  const good = loadConfig(
    {
      dataDir: dir,
      mqttUrl: 'ws://broker.local:8083/mqtt',
      publicUrl: 'http://[fd00::2]:5000/',
      historyUrl: 'http://victoria:8428',
    },
    {},
  );
  t.equal(good.mqttUrl, 'ws://broker.local:8083/mqtt');
  t.equal(good.publicUrl, 'http://[fd00::2]:5000/');
  t.equal(good.historyUrl, 'http://victoria:8428');
  t.equal(good.history, 'victoria');
  t.equal(loadConfig({ dataDir: dir }, {}).mqttUrl, 'embedded');
});
