// What the service manager, not the unit, gives a drop-in's ExecStart. (1) DefaultEnvironment= of
// /etc/systemd/system.conf and its system.conf.d/ drop-ins, which systemd gives every service
// below the unit's own settings, was read as empty; it is known from those files and is
// expanded. (2) A name in PassEnvironment= takes its value from systemd's own environment, which
// no file holds: it was read as empty, and is now refused by name. The built CLI as a child
// process on a laid-out root.
// tags: slow (the built CLI, several times)
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { CLI, ROOT } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const NODE_LINE = '/usr/bin/node /opt/edgeblocks/dist/src/main.js';

function tmp(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-manager-env-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A root with the unit, its config file, its data dir and the drop-in `text`. */
function withDropIn(t: Test, text: string): string {
  const root = path.join(tmp(t), 'root');
  const units = path.join(root, 'etc/systemd/system');
  mkdirSync(path.join(units, 'edgeblocks.service.d'), { recursive: true });
  copyFileSync(path.join(ROOT, 'systemd/edgeblocks.service'), path.join(units, 'edgeblocks.service'));
  writeFileSync(path.join(units, 'edgeblocks.service.d/override.conf'), text);
  mkdirSync(path.join(root, 'etc/edgeblocks'), { recursive: true });
  writeFileSync(path.join(root, 'etc/edgeblocks/config.json'), '{}');
  mkdirSync(path.join(root, 'var/lib/edgeblocks'), { recursive: true, mode: 0o700 });
  return root;
}

function put(root: string, file: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

/** `edgeblocks check --root ROOT` (or `doctor`), run from a directory of its own. */
function run(t: Test, root: string, command = 'check') {
  const r = spawnSync(process.execPath, [CLI, command, '--root', root], {
    cwd: tmp(t),
    encoding: 'utf8',
    timeout: limit(30_000),
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

t.test('DefaultEnvironment= of system.conf and its drop-ins is expanded, below the unit’s Environment=', async (t) => {
  const root = withDropIn(
    t,
    `[Service]\nEnvironment=BREWS=/srv/unit\nExecStart=\nExecStart=${NODE_LINE} --data-dir \${CELLAR}/data --config \${BREWS}/eb.json\n`,
  );
  put(
    root,
    'etc/systemd/system.conf',
    '[Manager]\n#DefaultEnvironment=CELLAR=/nowhere\nDefaultEnvironment=BREWS=/srv/manager CELLAR=/srv/first\n',
  );
  // A drop-in of system.conf: read after the file, its assignments added (the later one wins).
  put(root, 'etc/systemd/system.conf.d/10-cellar.conf', '[Manager]\nDefaultEnvironment="CELLAR=/srv/cellar"\n');
  mkdirSync(path.join(root, 'srv/cellar/data'), { recursive: true, mode: 0o700 });
  put(root, 'srv/unit/eb.json', JSON.stringify({ port: 8099 }));
  const res = run(t, root);
  t.equal(res.code, 0, res.err);
  t.notMatch(res.out + res.err, /makes it empty/, 'no variable is said to be empty');
  t.match(res.out, `(${path.join(root, 'srv/unit/eb.json')}) is valid`);
  t.match(res.out, `with the data dir ${path.join(root, 'srv/cellar/data')}`);
});

t.test(
  'a variable PassEnvironment= passes from systemd’s own environment is refused by name, not read as empty',
  async (t) => {
    const root = withDropIn(
      t,
      `[Service]\nPassEnvironment=BREWHOME\nExecStart=\nExecStart=${NODE_LINE} --data-dir \${BREWHOME}/data\n`,
    );
    // Set in DefaultEnvironment= too: what PassEnvironment= passes is still the manager's own, not known here.
    put(root, 'etc/systemd/system.conf', '[Manager]\nDefaultEnvironment=BREWHOME=/srv\n');
    const res = run(t, root);
    t.equal(res.code, 2, res.out);
    t.match(
      res.err,
      /override\.conf uses \$BREWHOME, which PassEnvironment= \(\/etc\/systemd\/system\/edgeblocks\.service\.d\/override\.conf\) passes from systemd's own environment/,
    );
    t.notMatch(res.out + res.err, /makes it empty/);
    const doctor = run(t, root, 'doctor');
    t.equal(doctor.code, 2, doctor.out);
    t.match(doctor.err, /uses \$BREWHOME, which PassEnvironment=/);

    // The unit's own Environment= wins over what PassEnvironment= passes, as in systemd: known.
    const set = withDropIn(
      t,
      `[Service]\nPassEnvironment=BREWHOME\nEnvironment=BREWHOME=/srv\nExecStart=\nExecStart=${NODE_LINE} --data-dir \${BREWHOME}/data\n`,
    );
    mkdirSync(path.join(set, 'srv/data'), { recursive: true, mode: 0o700 });
    const known = run(t, set);
    t.equal(known.code, 0, known.err);
    t.match(known.out, `with the data dir ${path.join(set, 'srv/data')}`);
  },
);
