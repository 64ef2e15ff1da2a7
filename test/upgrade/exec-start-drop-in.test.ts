// A drop-in that replaces the unit's command line (`sudo systemctl edit edgeblocks`: an empty
// `ExecStart=` and a new one, with another --data-dir or --port) is what systemd starts, but
// `edgeblocks check`, the doctor and `edgeblocks user` took the unit's own flags: check read
// /var/lib/edgeblocks (auth on, "no user there"), the doctor found that dir unlocked and tested
// the buses beside the running service (two masters on one bus) instead of asking it on its
// port, and `user add` added a user the service never reads. They now read the effective
// ExecStart as systemd does: the unit, then the drop-ins in lexical order (/etc before /run
// before /usr/lib for one name), an empty `ExecStart=` clearing the lines before it. The built
// CLI as a child process (check, doctor), `edgeblocks user` in-process on a laid-out root.
// tags: slow (the built CLI, four times)
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import t, { type Test } from 'tap';
import { runUserCommand } from '../../src/auth/cli.js';
import { UsersFile } from '../../src/auth/users.js';
import { CLI, ROOT, startCli } from '../helpers/cli.js';
import { doctor, sectionNamed, setUp, type Section } from '../helpers/doctor.js';
import { limit } from '../helpers/limits.js';

const NODE_LINE = '/usr/bin/node /opt/edgeblocks/dist/src/main.js --config /etc/edgeblocks/config.json';

/** The installed unit, its config file (auth on), the old data dir, and drop-ins by path under `root`. */
function install(root: string, dropIns: Record<string, string>): void {
  const units = path.join(root, 'etc/systemd/system');
  mkdirSync(units, { recursive: true });
  copyFileSync(path.join(ROOT, 'systemd/edgeblocks.service'), path.join(units, 'edgeblocks.service'));
  mkdirSync(path.join(root, 'etc/edgeblocks'), { recursive: true });
  writeFileSync(path.join(root, 'etc/edgeblocks/config.json'), JSON.stringify({ auth: true }));
  mkdirSync(path.join(root, 'var/lib/edgeblocks'), { recursive: true, mode: 0o700 });
  for (const [file, text] of Object.entries(dropIns)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
}

function tmp(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-exec-start-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function check(root: string) {
  const r = spawnSync(process.execPath, [CLI, 'check', '--root', root], {
    encoding: 'utf8',
    timeout: limit(30_000),
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const moved = (dir: string, more = '') => `[Service]\nExecStart=\nExecStart=${NODE_LINE} --data-dir ${dir}${more}\n`;

t.test('check reads the data dir of the ExecStart a drop-in gives', async (t) => {
  const root = path.join(tmp(t), 'root');
  install(root, { 'etc/systemd/system/edgeblocks.service.d/data.conf': moved('/srv/brew') });
  const data = path.join(root, 'srv/brew');
  mkdirSync(data, { recursive: true, mode: 0o700 });
  await new UsersFile(data).load().add('brewer', 'a long enough password');
  const res = check(root);
  t.equal(res.code, 0, res.err);
  t.match(res.out, `is valid, with the data dir ${data}`);
});

t.test('drop-ins count in lexical order, /etc over /usr/lib for one name; ExecStart= clears', async (t) => {
  const root = path.join(tmp(t), 'root');
  install(root, {
    // Read first (10- < 20-), then replaced by the one after it.
    'etc/systemd/system/edgeblocks.service.d/10-first.conf': moved('/srv/first'),
    'usr/lib/systemd/system/edgeblocks.service.d/20-vendor.conf': moved('/srv/vendor'),
    // Same name in /etc: the /usr/lib one is not read.
    'etc/systemd/system/edgeblocks.service.d/20-vendor.conf': moved('/srv/second'),
    // Not a .conf: not read.
    'etc/systemd/system/edgeblocks.service.d/30-notes.txt': moved('/srv/notes'),
  });
  const data = path.join(root, 'srv/second');
  mkdirSync(data, { recursive: true, mode: 0o700 });
  await new UsersFile(data).load().add('brewer', 'a long enough password');
  const res = check(root);
  t.equal(res.code, 0, res.err);
  t.match(res.out, `with the data dir ${data}`);

  // A flag the service would refuse in the drop-in's ExecStart names the drop-in.
  writeFileSync(
    path.join(root, 'etc/systemd/system/edgeblocks.service.d/40-port.conf'),
    moved('/srv/second', ' --port many'),
  );
  const refused = check(root);
  t.equal(refused.code, 2, refused.out);
  t.match(refused.err, /port/);
  t.match(refused.err, 'ExecStart in /etc/systemd/system/edgeblocks.service.d/40-port.conf');
});

t.test('`edgeblocks user add` adds to the data dir of the effective ExecStart', async (t) => {
  const dir = tmp(t);
  const root = path.join(dir, 'root');
  install(root, { 'etc/systemd/system/edgeblocks.service.d/override.conf': moved('/srv/brew') });
  const data = path.join(root, 'srv/brew');
  mkdirSync(data, { recursive: true, mode: 0o700 });
  let stderr = '';
  const io = {
    stdin: Readable.from(['a long password\n']),
    stdout: { write: (_s: string) => true },
    stderr: { write: (s: string) => (stderr += s) },
  };
  const code = await runUserCommand(['add', 'alice'], io, {}, root);
  t.equal(code, 0, stderr);
  t.ok(existsSync(path.join(data, 'users.json')), 'in the data dir the service reads');
  t.notOk(existsSync(path.join(root, 'var/lib/edgeblocks/users.json')), 'not in the one the unit named first');
});

t.test("the doctor finds the service in the drop-in's data dir and asks it on the drop-in's port", async (t) => {
  const s = setUp(t, 'pi4', { w1: [[{ name: 'fridge', type: 'DS18B20', temperature: 4 }]] });
  const data = path.join(s.root, 'srv/brew');
  mkdirSync(data, { recursive: true, mode: 0o700 });
  await new UsersFile(data).load().add('brewer', 'a long enough password');
  const service = await startCli(
    ['--hardware', 'sim', '--sim-config', s.simConfig, '--data-dir', data, '--mqtt-port', '0'],
    { EDGEBLOCKS_HOST: '127.0.0.1', EDGEBLOCKS_AUTH: 'false' },
    t,
  );
  install(s.root, {
    'etc/systemd/system/edgeblocks.service.d/override.conf': moved('/srv/brew', ` --port ${service.port} --no-auth`),
  });
  const res = doctor(['--root', s.root, '--hardware', 'sim', '--sim-config', s.simConfig, '--json'], {
    EDGEBLOCKS_HOST: '127.0.0.1',
  });
  t.equal(res.code, 0, res.stderr);
  const view = sectionNamed((JSON.parse(res.stdout) as { sections: Section[] }).sections, /^Service$/);
  t.match(Object.fromEntries(view.facts), { api: `http://127.0.0.1:${service.port}/edge-one/system/status` });
});

// A drop-in with a new ExecStart= but no empty one before it gives the service two: systemd
// refuses to start it, while check said the configuration was valid and the doctor nothing.
t.test('a drop-in that adds a second ExecStart: check warns, the doctor fails it', async (t) => {
  const s = setUp(t, 'pi4', { w1: [] });
  install(s.root, {
    'etc/systemd/system/edgeblocks.service.d/override.conf': `[Service]\nExecStart=${NODE_LINE} --data-dir /srv/brew\n`,
  });
  writeFileSync(path.join(s.root, 'etc/edgeblocks/config.json'), '{}');
  const res = check(s.root);
  t.equal(res.code, 0, res.err);
  const says = /override\.conf adds an ExecStart= without an empty "ExecStart=" line before it.*systemd refuses/;
  t.match(res.err, says);
  const report = doctor(['--root', s.root, '--hardware', 'sim', '--sim-config', s.simConfig, '--json']);
  const findings = (JSON.parse(report.stdout) as { sections: Section[] }).sections.flatMap((x) => x.findings);
  t.match(
    findings.find((f) => says.test(f.text)),
    { verdict: 'fail' },
    JSON.stringify(findings),
  );
});

/** A root with the unit, the drop-in `text` and an empty data dir at `data` (under the root). */
function withDropIn(t: Test, text: string, data?: string): string {
  const root = path.join(tmp(t), 'root');
  install(root, { 'etc/systemd/system/edgeblocks.service.d/override.conf': text });
  writeFileSync(path.join(root, 'etc/edgeblocks/config.json'), '{}');
  if (data) mkdirSync(path.join(root, data), { recursive: true, mode: 0o700 });
  return root;
}

// systemd.syntax(7): a comment line inside a continued line is ignored; it was joined into the
// value, so check and the doctor refused '"#": unexpected argument' for a unit systemd starts.
t.test('a comment line inside a continued ExecStart is not part of it', async (t) => {
  const root = withDropIn(
    t,
    `[Service]\nExecStart=\nExecStart=${NODE_LINE} \\\n# data on the USB disk\n  ; and a second comment\n  --data-dir /data/eb\n`,
    'data/eb',
  );
  const res = check(root);
  t.equal(res.code, 0, res.err);
  t.match(res.out, `with the data dir ${path.join(root, 'data/eb')}`);
});

// `env VAR=value node ...` and node's own options with a separate value (-r FILE): the words
// before the script were taken as the service's arguments ('"node": unexpected argument') or the
// option's value as the script.
t.test('env, its variables and node options with separate values come before the script', async (t) => {
  for (const program of [
    '/usr/bin/env NODE_ENV=production node',
    '/usr/bin/env -u HOME /usr/bin/node --max-old-space-size=256',
    '/usr/bin/node -r /opt/trace.js --import /opt/otel.mjs --title edgeblocks',
  ]) {
    const root = withDropIn(
      t,
      `[Service]\nExecStart=\nExecStart=${program} /opt/edgeblocks/dist/src/main.js --data-dir /srv/brew\n`,
      'srv/brew',
    );
    const res = check(root);
    t.equal(res.code, 0, `${program}: ${res.err}`);
    t.match(res.out, `with the data dir ${path.join(root, 'srv/brew')}`, program);
  }
});

// Specifiers and variables in ExecStart were taken literally: '--data-dir %S/eb' was checked as
// '<root>/%S/eb'. The common ones of a system unit are expanded, as are $VAR and ${VAR} from the
// unit's Environment=; a specifier that is not is refused by name, never read as a path.
t.test('specifiers and variables of a drop-in’s ExecStart are expanded, or refused by name', async (t) => {
  const expanded = withDropIn(
    t,
    `[Service]\nEnvironment=BREW=brew "WHERE=--port 8089"\nExecStart=\nExecStart=${NODE_LINE} --data-dir %S/\${BREW}%% $WHERE\n`,
    'var/lib/brew%',
  );
  const res = check(expanded);
  t.equal(res.code, 0, res.err);
  t.match(res.out, `with the data dir ${path.join(expanded, 'var/lib/brew%')}`);

  const refused = withDropIn(t, `[Service]\nExecStart=\nExecStart=${NODE_LINE} --data-dir %h/eb\n`);
  const no = check(refused);
  t.equal(no.code, 2, no.out);
  t.match(no.err, /\/etc\/systemd\/system\/edgeblocks\.service\.d\/override\.conf uses the specifier %h/);
  // A variable the unit does not set is empty, as systemd makes it (test/upgrade/exec-start-relative.test.ts).
});
