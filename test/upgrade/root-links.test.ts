// Under --root DIR (`check --root`, `doctor --root`, the installer's DESTDIR) the files are those
// of another system: a link in it that names an absolute path names a path on that system. The
// data moved to another disk, /var/lib/edgeblocks a link to /data/eb, was followed on the machine
// running the check, to its own /data/eb: the config file naming /data/eb was refused as a second
// data dir, and the check read (and called missing) a dir that is not the card's. Such a link is
// now read inside the root, as DIR/data/eb. The built CLI as a child process, on real files.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { CLI, ROOT } from '../helpers/cli.js';
import { doctor } from '../helpers/doctor.js';
import { limit } from '../helpers/limits.js';

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    timeout: limit(30_000),
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

t.test('an absolute link under --root is followed inside the root', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-root-links-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const root = path.join(dir, 'root');
  // A path that is not on the machine running the check: only the card has it.
  const moved = `/data-${path.basename(dir)}/eb`;
  const inRoot = path.join(root, moved);
  const config = path.join(root, 'etc/edgeblocks/config.json');
  const installed = path.join(root, 'var/lib/edgeblocks');
  mkdirSync(inRoot, { recursive: true });
  mkdirSync(path.dirname(installed), { recursive: true });
  symlinkSync(moved, installed);
  mkdirSync(path.dirname(config), { recursive: true });
  writeFileSync(config, JSON.stringify({ hardware: 'sim' }));
  mkdirSync(path.join(root, 'etc/systemd/system'), { recursive: true });
  copyFileSync(path.join(ROOT, 'systemd/edgeblocks.service'), path.join(root, 'etc/systemd/system/edgeblocks.service'));

  const plain = cli(['check', '--root', root]);
  t.equal(plain.code, 0, plain.err);
  t.match(plain.out, `with the data dir ${inRoot}`);
  t.equal(plain.err, '', 'no warning of a data dir that does not exist');

  // As the installer asks a release under DESTDIR.
  const asInstaller = cli(['check', '--root', root, '--config', config, '--data-dir', installed]);
  t.equal(asInstaller.code, 0, asInstaller.err);
  t.match(asInstaller.out, `with the data dir ${inRoot}`);
  t.equal(asInstaller.err, '');

  // The config file naming where the data went: the unit's dir, a link to it, is the same dir.
  writeFileSync(config, JSON.stringify({ hardware: 'sim', dataDir: moved }));
  const named = cli(['check', '--root', root]);
  t.equal(named.code, 0, named.err);
  t.match(named.out, `with the data dir ${inRoot}`);
  const doc = doctor(['--root', root, '--json']);
  t.not(doc.code, 2, doc.stderr);
  const disk = JSON.parse(doc.stdout).sections[0].facts.find(([k]: string[]) => k === 'disk')?.[1];
  t.match(disk, new RegExp(`^${moved}:`), 'the doctor reports the disk of the dir on the card');
});

t.test('a link loop under --root is refused, not followed on this machine', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-root-loop-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const root = path.join(dir, 'root');
  // On the card, /tmp is a link to /tmp: a loop there. On this machine, ROOT/tmp -> /tmp is this
  // machine's /tmp, which holds a config file of its own that is not the card's.
  const host = mkdtempSync(path.join(tmpdir(), 'edgeblocks-host-'));
  t.teardown(() => rmSync(host, { recursive: true, force: true }));
  writeFileSync(path.join(host, 'config.json'), JSON.stringify({ hardware: 'sim', dataDir: '/host-only' }));
  mkdirSync(root, { recursive: true });
  symlinkSync('/tmp', path.join(root, 'tmp'));
  const config = path.join(root, 'etc/edgeblocks/config.json');
  mkdirSync(path.dirname(config), { recursive: true });
  symlinkSync(path.join('/tmp', path.basename(host), 'config.json'), config);
  mkdirSync(path.join(root, 'var/lib/edgeblocks'), { recursive: true });

  const r = cli(['check', '--root', root]);
  t.equal(r.code, 2, 'refused');
  t.match(r.err, /too many levels of symbolic links/, r.err);
  t.notMatch(r.out + r.err, /host-only/, "this machine's file was not read");
});
