// tags: slow (the built CLI, started for each case; the bad settings are in config-errors.test.ts)
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, parseArgs } from '../../src/config.js';
import { CLI, startCli } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-config-'));
const file = (name: string, content: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, content);
  return p;
};

t.test('precedence: defaults < file < env < flags', async (t) => {
  const cfg = file(
    'a.json',
    JSON.stringify({ serviceId: 'from-file', port: 6001, topicRoot: 'file', emitInterval: 1000 }),
  );
  const c = loadConfig(parseArgs(['--config', cfg, '--port', '7001']).values, {
    EDGEBLOCKS_PORT: '6501',
    EDGEBLOCKS_TOPIC_ROOT: 'env',
  });
  t.equal(c.serviceId, 'from-file', 'file over default');
  t.equal(c.topicRoot, 'env', 'env over file');
  t.equal(c.port, 7001, 'flag over env');
  t.equal(c.emitInterval, 1000);
  t.equal(c.mqttUrl, 'embedded', 'default');
  const viaEnv = loadConfig({}, { EDGEBLOCKS_CONFIG: cfg });
  t.equal(viaEnv.serviceId, 'from-file', 'config file from the environment');
  t.equal(loadConfig(parseArgs(['--port=0']).values, {}).port, 0, '--flag=value form');
});

t.test('--port 0 picks a free port and logs it', async (t) => {
  const cli = await startCli(['--data-dir', dir, '--mqtt-port', '0'], {}, t);
  t.teardown(() => cli.child.kill('SIGKILL'));
  t.ok(cli.port > 0);
  const ping = await fetch(`${cli.base}/edge-one/system/ping`);
  t.same(await ping.json(), { ping: 'pong' });
});

t.test('--help lists every flag', async (t) => {
  const res = spawnSync(process.execPath, [CLI, '--help'], {
    encoding: 'utf8',
    timeout: limit(15000),
    killSignal: 'SIGKILL',
  });
  t.equal(res.status, 0);
  for (const flag of [
    '--config',
    '--service-id',
    '--host',
    '--port',
    '--https-port',
    '--data-dir',
    '--mqtt-url',
    '--mqtt-port',
    '--topic-root',
    '--hardware',
    '--sim-config',
    '--emit-interval',
    '--log-level',
  ]) {
    t.match(res.stdout, flag);
  }
});

// Issue 24.15: one parser and one set of rules for flags, the environment and the file.
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: limit(15000),
    killSignal: 'SIGKILL',
  });

t.test('help and version as words, like --help and --version', async (t) => {
  const help = cli(['help']);
  t.equal(help.status, 0, help.stderr);
  t.equal(help.stdout, cli(['--help']).stdout, 'the same text as --help');
  t.match(help.stdout, /^Usage: edgeblocks/);
  const version = cli(['version']);
  t.equal(version.status, 0, version.stderr);
  t.equal(version.stdout, cli(['--version']).stdout);
  t.match(version.stdout, /^\d+\.\d+\.\d+/);
  const other = cli(['frobnicate']);
  t.equal(other.status, 2);
  t.match(
    other.stderr,
    /^edgeblocks: configuration error: "frobnicate": unexpected argument; commands: help, version, user/,
  );
});

t.test('`edgeblocks user` alone prints the user commands, exit 2', async (t) => {
  const res = cli(['user']);
  t.equal(res.status, 2);
  t.match(res.stderr, /^Usage: edgeblocks user <command> \[options\]\n {2}add NAME/);
  t.equal(res.stdout, '');
});

t.test('a mistyped flag names the closest flag', async (t) => {
  const res = cli(['--prot', '5000']);
  t.equal(res.status, 2);
  t.equal(res.stderr, 'edgeblocks: configuration error: --prot: unknown option; did you mean "--port"? (see --help)\n');
  const user = cli(['user', 'list', '--data-dri', '/tmp/x']);
  t.equal(user.status, 2);
  t.match(user.stderr, /^edgeblocks user: --data-dri: unknown option; did you mean "--data-dir"\?/);
});

t.test('a flag, the environment and the file take the same values', async (t) => {
  // `--history victoria` without a URL: refused after every single setting was read, so a
  // run that gets that far accepted the auth value.
  const later = /^edgeblocks: configuration error: historyUrl: --history victoria needs --history-url/;
  const words: Array<[string, boolean]> = [
    ['true', true],
    ['false', true],
    ['yes', false],
    ['1', false],
    ['on', false],
  ];
  for (const [word, ok] of words) {
    const fromFlag = cli(['--auth', word, '--history', 'victoria']);
    const fromEnv = cli(['--history', 'victoria'], { EDGEBLOCKS_AUTH: word });
    const fromFile = cli([
      '--config',
      file(`auth-${word}.json`, JSON.stringify({ auth: ok ? word === 'true' : word })),
      '--history',
      'victoria',
    ]);
    for (const [source, res] of [
      ['flag --auth', fromFlag],
      ['env EDGEBLOCKS_AUTH', fromEnv],
      ['file', fromFile],
    ] as const) {
      if (ok) t.match(res.stderr, later, `${source} ${word}`);
      else
        t.equal(
          res.stderr,
          `edgeblocks: configuration error: auth (${source}): must be true or false, got "${word}"\n`,
          `${source} ${word}`,
        );
    }
  }
});

t.test('--help is generated from the schema: every setting, its description and default', async (t) => {
  const { SETTINGS, DEFAULTS } = await import('../../src/config-schema.js');
  const help = cli(['--help']).stdout;
  for (const { key, schema } of SETTINGS) {
    const fallback = (DEFAULTS as Record<string, unknown>)[key];
    const isSwitch = schema.type === 'boolean' && schema.flag !== undefined;
    const label = isSwitch ? `--[no-]${schema.flag!.slice(2)}` : (schema.flag ?? `(file) ${key}`);
    const row = help.split('\n').find((line) => line.includes(label) && (!schema.env || line.includes(schema.env)));
    t.ok(row, `a row for ${key}`);
    t.ok(row?.includes(schema.description!), `${key}: its description`);
    const shown = isSwitch ? (fallback ? 'on' : 'off') : JSON.stringify(fallback ?? null);
    t.ok(row?.endsWith(`[${shown}]`), `${key}: its default`);
  }
});

// Issue 50.2: `--help` shows a true/false flag as a switch, and it works as one.
t.test('every true/false flag is a switch: bare, --no-, =false, a true/false word', async (t) => {
  const { SETTINGS } = await import('../../src/config-schema.js');
  const switches = SETTINGS.filter(({ schema }) => schema.type === 'boolean' && schema.flag);
  t.ok(switches.length >= 2, `the schema has switches (${switches.map((s) => s.schema.flag).join(', ')})`);
  const help = cli(['--help']).stdout;
  for (const { key, schema } of switches) {
    const name = schema.flag!.slice(2);
    const value = (args: string[]) => loadConfig(parseArgs(args).values, {})[key];
    t.equal(value([`--${name}`]), true, `--${name} alone is true`);
    t.equal(value([`--no-${name}`]), false, `--no-${name} is false`);
    t.equal(value([`--${name}=false`]), false, `--${name}=false`);
    t.equal(value([`--${name}=true`]), true, `--${name}=true`);
    t.equal(value([`--${name}`, 'false']), false, `--${name} false`);
    t.equal(value([`--${name}`, 'true', '--port', '0']), true, `--${name} true before another flag`);
    t.equal(value([`--${name}`, `--no-${name}`]), false, 'the last one wins');
    t.equal(value([`--${name}`, '--port', '0']), true, 'a bare switch before another flag');
    t.throws(() => parseArgs([`--${name}=yes`]), { message: new RegExp(`^--${name}: is a switch: --${name} or`) });
    t.throws(() => parseArgs([`--no-${name}=true`]), { message: new RegExp(`^--no-${name}: takes no value`) });
    for (const args of [
      [`--${name}`, 'yes'],
      ['--service-id', 'yes', `--${name}`, 'yes'],
    ])
      t.throws(() => parseArgs(args), {
        message: `${key} (flag --${name}): must be true or false, got "yes"`,
      });
    t.match(
      help,
      new RegExp(`^  --\\[no-\\]${name} +${schema.env} .*\\[(on|off)\\]$`, 'm'),
      `--help shows --[no-]${name}`,
    );
  }
  t.throws(() => parseArgs(['--no-port', '5000']), { message: /^--no-port: unknown option; did you mean "--port"\?/ });
  const bare = cli(['--home-assistant', '--auth', '--history', 'victoria']);
  t.match(bare.stderr, /^edgeblocks: configuration error: historyUrl: /, 'the service reads bare switches');
});
