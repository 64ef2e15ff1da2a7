// A config file that cannot be read says why in words and what to do, not only an errno: a path
// that is a directory (`--config /etc/edgeblocks`), and a file the service user may not read (an
// editor that saved it root-only; the installer makes it root:edgeblocks 0640). The service user
// here is `nobody`: the tests run as root, as CI does.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { ConfigError, loadConfig } from '../../src/config.js';
import { CLI } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-unreadable-'));
chmodSync(dir, 0o755);
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('a directory, and a missing file, are named as such', async (t) => {
  const folder = path.join(dir, 'edgeblocks');
  mkdirSync(folder);
  const err = t.throws(() => loadConfig({ config: folder }, {})) as ConfigError;
  t.type(err, ConfigError);
  t.equal(err.message, `config: cannot read ${folder}: EISDIR (it is a directory); give the path of the config file`);
  const gone = path.join(dir, 'gone.json');
  t.equal(
    (t.throws(() => loadConfig({ config: gone }, {})) as Error).message,
    `config: cannot read ${gone}: ENOENT (there is no such file); give the path of the config file`,
  );
});

const NOBODY = 65534;

/**
 * `edgeblocks check` run as nobody on a config file owned root:`gid` with `mode`: its exit code and
 * the first line of its errors (tap's process-info hook in the child, run as nobody, adds its own
 * complaint after it).
 */
function checkAsNobody(name: string, gid: number, mode: number): { status: number | null; line: string; file: string } {
  const file = path.join(dir, name);
  writeFileSync(file, '{}');
  chownSync(file, 0, gid);
  chmodSync(file, mode);
  const r = spawnSync(process.execPath, [CLI, 'check', '--config', file, '--data-dir', path.join(dir, 'data')], {
    encoding: 'utf8',
    timeout: limit(30_000),
    uid: NOBODY,
    gid: NOBODY,
    env: { PATH: process.env.PATH },
  });
  return { status: r.status, line: r.stderr.split('\n')[0]!, file };
}

t.test(
  'a file the user may not read: who may not, and the fix',
  { skip: process.getuid?.() !== 0 && 'needs root' },
  async (t) => {
    // The file is for nobody's group (root:nogroup), but an editor saved it owner-only.
    const { status, line, file } = checkAsNobody('config.json', NOBODY, 0o600);
    t.equal(status, 2);
    t.match(
      line,
      new RegExp(
        `^edgeblocks: configuration error: config: cannot read ${file}: EACCES \\(user \\S+ may not read it\\); fix: sudo chown root:\\S+ ${file} && sudo chmod 640 ${file}$`,
      ),
    );
  },
);

t.test(
  "a file that is another group's (the installed root:edgeblocks 0640) read by someone else: sudo, not a chown that would take it from the service",
  { skip: process.getuid?.() !== 0 && 'needs root' },
  async (t) => {
    const { status, line } = checkAsNobody('installed.json', 0, 0o640);
    t.equal(status, 2);
    t.match(line, /\(user \S+ may not read it; it is for group root\); run the command with sudo$/);
    t.notMatch(line, /chown|chmod/, 'no ownership change offered');
  },
);
