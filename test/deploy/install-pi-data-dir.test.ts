// The installer's check of a release (`edgeblocks check`, the real built CLI here) and the data
// dir the unit gives: an upgrade under DESTDIR whose config file spells out /var/lib/edgeblocks
// (the unit's own dir, as it is on the Pi) was refused as a second data dir, because the check
// compared it with DESTDIR/var/lib/edgeblocks; and EDGEBLOCKS_DATA_DIR in a drop-in, which the
// unit's --data-dir silently overrides, passed. Same sandbox as install-pi.test.ts; the staged
// release's `check` runs the repository's built CLI with the installer's arguments.
// tags: slow (the installer in a sandbox)
import t from 'tap';
import { existsSync, mkdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CLI } from '../helpers/cli.js';
import { fakeMain } from './install-fakes.js';
import { PREFIX, install, makeSandbox, type Sandbox } from './install-pi-rig.js';
import { limit } from '../helpers/limits.js';

// Each test runs the installer several times; on a loaded machine the file outlasts tap's 120 s.
t.setTimeout(limit(300_000));

const REAL_CHECK =
  fakeMain(`  const r = require('node:child_process').spawnSync(process.execPath, [${JSON.stringify(CLI)}, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);`);

function put(sb: Sandbox, file: string, text: string): void {
  mkdirSync(dirname(join(sb.root, file)), { recursive: true });
  writeFileSync(join(sb.root, file), text);
}

/** 1.0.0 installed in the sandbox, with the real check. */
function installed(t: Parameters<typeof makeSandbox>[0]) {
  const sb = makeSandbox(t);
  writeFileSync(join(sb.src, 'dist/src/main.js'), REAL_CHECK);
  const first = install(sb, ['--no-start']);
  if (first.code !== 0) throw new Error(first.stderr);
  const current = () => readlinkSync(join(sb.root, PREFIX));
  const upgrade = () => {
    writeFileSync(join(sb.src, 'package.json'), '{"name":"edgeblocks","version":"2.0.0"}\n');
    return install(sb, ['--no-start']);
  };
  return { sb, current, v1: current(), upgrade };
}

t.test('a config file naming the unit’s data dir as on the Pi passes the check under DESTDIR', async (t) => {
  const { sb, current, v1, upgrade } = installed(t);
  put(sb, 'etc/edgeblocks/config.json', '{ "serviceId": "edge-one", "dataDir": "/var/lib/edgeblocks" }\n');
  mkdirSync(join(sb.root, 'var/lib/edgeblocks'), { recursive: true });
  const up = upgrade();
  t.equal(up.code, 0, up.stderr);
  t.not(current(), v1, 'upgraded');
});

t.test('a drop-in EDGEBLOCKS_DATA_DIR the unit’s --data-dir overrides stops the upgrade, naming both', async (t) => {
  const { sb, current, v1, upgrade } = installed(t);
  put(
    sb,
    'etc/systemd/system/edgeblocks.service.d/override.conf',
    '[Service]\nEnvironment=EDGEBLOCKS_DATA_DIR=/srv/edgeblocks\n',
  );
  const up = upgrade();
  t.equal(up.code, 1, 'the installer fails');
  t.match(
    up.stderr,
    `EDGEBLOCKS_DATA_DIR is "/srv/edgeblocks", but --data-dir gives ${JSON.stringify(join(sb.root, 'var/lib/edgeblocks'))}`,
  );
  t.match(up.stderr, 'EDGEBLOCKS_DATA_DIR from /etc/systemd/system/edgeblocks.service.d/override.conf');
  t.equal(current(), v1, 'still on 1.0.0');

  // The drop-in naming the unit's own dir is one dir.
  put(
    sb,
    'etc/systemd/system/edgeblocks.service.d/override.conf',
    '[Service]\nEnvironment=EDGEBLOCKS_DATA_DIR=/var/lib/edgeblocks\n',
  );
  const again = upgrade();
  t.equal(again.code, 0, again.stderr);
  t.not(current(), v1, 'upgraded');
});

// The docs invite a data dir moved to another disk with /var/lib/edgeblocks a link to it.
// --uninstall --purge removed the link alone and said it had purged the data dir, while the
// database, users and backups stayed on the other disk under an owner about to be deleted.
// It still keeps them (the link may lead anywhere) and now says where they are.
t.test('--purge of a data dir that is a link says the data it leads to is kept, and where', async (t) => {
  const { sb } = installed(t);
  const moved = join(sb.root, 'mnt/usb/edgeblocks');
  mkdirSync(moved, { recursive: true });
  writeFileSync(join(moved, 'edgeblocks.db'), 'the brewery');
  mkdirSync(join(sb.root, 'var/lib'), { recursive: true });
  rmSync(join(sb.root, 'var/lib/edgeblocks'), { recursive: true, force: true });
  symlinkSync(moved, join(sb.root, 'var/lib/edgeblocks'));
  const purged = install(sb, ['--uninstall', '--purge']);
  t.equal(purged.code, 0, purged.stderr);
  t.notOk(existsSync(join(sb.root, 'var/lib/edgeblocks')), 'the link is gone');
  t.equal(readFileSync(join(moved, 'edgeblocks.db'), 'utf8'), 'the brewery', 'the data it led to is kept');
  t.match(
    purged.stdout,
    `${join(sb.root, 'var/lib/edgeblocks')} was a link: removed it, and kept the data dir it led to, ${moved} (remove it yourself if you no longer want it)`,
  );
  t.notMatch(purged.stdout, /purged .*var\/lib\/edgeblocks/, 'not said to be purged');
});

// The same link to a disk not mounted, its mount folder gone (a desktop's automount under /media
// removes it): readlink -f resolved nothing, and the purge said the data dir was purged.
t.test('--purge of a data dir linked to a disk not mounted says so, naming where it led', async (t) => {
  const { sb } = installed(t);
  const gone = join(sb.root, 'media/usb/edgeblocks');
  mkdirSync(join(sb.root, 'var/lib'), { recursive: true });
  rmSync(join(sb.root, 'var/lib/edgeblocks'), { recursive: true, force: true });
  symlinkSync(gone, join(sb.root, 'var/lib/edgeblocks'));
  const purged = install(sb, ['--uninstall', '--purge']);
  t.equal(purged.code, 0, purged.stderr);
  t.match(purged.stdout, `was a link: removed it, and kept the data dir it led to, ${gone}`);
  t.notMatch(purged.stdout, /purged .*var\/lib\/edgeblocks/, 'not said to be purged');
});

// A drop-in that replaces the unit's ExecStart with another --data-dir (`sudo systemctl edit
// edgeblocks`) moves the service's data; the installer's check still read /var/lib/edgeblocks:
// with auth on and the users where the service keeps them, every upgrade was refused ("no user
// in /var/lib/edgeblocks") and a database there the new release could not read passed unseen.
// The check is now given the dir (and file) of the effective ExecStart.
t.test('the data dir of a drop-in’s ExecStart is the one the check reads', async (t) => {
  const { sb, current, v1, upgrade } = installed(t);
  put(sb, 'etc/edgeblocks/config.json', '{ "auth": true }\n');
  mkdirSync(join(sb.root, 'var/lib/edgeblocks'), { recursive: true });
  put(
    sb,
    'etc/systemd/system/edgeblocks.service.d/override.conf',
    `[Service]\nExecStart=\nExecStart=/usr/bin/node ${PREFIX}/dist/src/main.js --config /etc/edgeblocks/config.json --data-dir /srv/brew\n`,
  );
  const { UsersFile } = await import('../../src/auth/users.js');
  mkdirSync(join(sb.root, 'srv/brew'), { recursive: true });
  await new UsersFile(join(sb.root, 'srv/brew')).load().add('brewer', 'a long enough password');
  const up = upgrade();
  t.equal(up.code, 0, up.stderr);
  t.not(current(), v1, 'upgraded');
});

// The flags of a drop-in's ExecStart are the service's too: one the staged release refuses (a
// flag an older release took, or one a rollback's older release does not know) passed the check,
// which was given only --config and --data-dir, and the service stopped at its restart.
t.test('a flag of a drop-in’s ExecStart the release refuses stops the upgrade', async (t) => {
  const { sb, current, v1, upgrade } = installed(t);
  put(
    sb,
    'etc/systemd/system/edgeblocks.service.d/override.conf',
    `[Service]\nExecStart=\nExecStart=/usr/bin/node ${PREFIX}/dist/src/main.js --config /etc/edgeblocks/config.json --data-dir /var/lib/edgeblocks --emit-interval soon\n`,
  );
  const up = upgrade();
  t.equal(up.code, 1, 'the upgrade stops');
  t.match(up.stderr, /emitInterval \(flag --emit-interval\)/);
  t.equal(current(), v1, 'still on the first release');
});

// Specifiers in a drop-in's ExecStart were taken literally: '--data-dir %S/brew' is no absolute
// path, so the check silently read /var/lib/edgeblocks (auth on, "no user there": every upgrade
// refused). %S is now /var/lib as systemd gives it, and one not worked out (%h) stops the
// upgrade, naming it and the drop-in, rather than checking another dir.
t.test('a drop-in’s ExecStart with %S is read as systemd does; one with %h stops the upgrade', async (t) => {
  const { sb, current, v1, upgrade } = installed(t);
  put(sb, 'etc/edgeblocks/config.json', '{ "auth": true }\n');
  mkdirSync(join(sb.root, 'var/lib/edgeblocks'), { recursive: true });
  const line = (dir: string) =>
    `[Service]\nExecStart=\nExecStart=/usr/bin/node ${PREFIX}/dist/src/main.js --config /etc/edgeblocks/config.json --data-dir ${dir}\n`;
  put(sb, 'etc/systemd/system/edgeblocks.service.d/override.conf', line('%S/brew'));
  const { UsersFile } = await import('../../src/auth/users.js');
  mkdirSync(join(sb.root, 'var/lib/brew'), { recursive: true });
  await new UsersFile(join(sb.root, 'var/lib/brew')).load().add('brewer', 'a long enough password');
  const up = upgrade();
  t.equal(up.code, 0, up.stderr);
  const v2 = current();
  t.not(v2, v1, 'upgraded');

  put(sb, 'etc/systemd/system/edgeblocks.service.d/override.conf', line('%h/brew'));
  writeFileSync(join(sb.src, 'package.json'), '{"name":"edgeblocks","version":"3.0.0"}\n');
  const refused = install(sb, ['--no-start']);
  t.equal(refused.code, 1, 'the upgrade stops');
  t.match(refused.stderr, 'edgeblocks.service.d/override.conf uses the specifier %h');
  t.equal(current(), v2, 'still on the second release');
});

// A relative --data-dir in a drop-in's ExecStart was left out of the check (it read
// /var/lib/edgeblocks: auth on, "no user there", the upgrade refused), though systemd starts the
// service in the unit's WorkingDirectory=, where it finds that dir. And an unset $VAR, which
// systemd makes empty, stopped the upgrade; it is now read as empty, and the installer says so.
t.test('a drop-in’s relative --data-dir is found from WorkingDirectory; an unset $VAR is empty', async (t) => {
  const { sb, current, v1, upgrade } = installed(t);
  put(sb, 'etc/edgeblocks/config.json', '{ "auth": true }\n');
  mkdirSync(join(sb.root, 'var/lib/edgeblocks'), { recursive: true });
  const line = (dir: string) =>
    `[Service]\nExecStart=\nExecStart=/usr/bin/node ${PREFIX}/dist/src/main.js --config /etc/edgeblocks/config.json --data-dir ${dir}\n`;
  put(sb, 'etc/systemd/system/edgeblocks.service.d/override.conf', line('brew'));
  const { UsersFile } = await import('../../src/auth/users.js');
  mkdirSync(join(sb.root, 'var/lib/edgeblocks/brew'), { recursive: true });
  await new UsersFile(join(sb.root, 'var/lib/edgeblocks/brew')).load().add('brewer', 'a long enough password');
  const up = upgrade();
  t.equal(up.code, 0, up.stderr);
  const v2 = current();
  t.not(v2, v1, 'upgraded');

  put(sb, 'etc/systemd/system/edgeblocks.service.d/override.conf', line('brew${NOWHERE}'));
  writeFileSync(join(sb.src, 'package.json'), '{"name":"edgeblocks","version":"3.0.0"}\n');
  const again = install(sb, ['--no-start']);
  t.equal(again.code, 0, again.stderr);
  t.match(again.stderr, /override\.conf uses \$NOWHERE, which no Environment= .*systemd makes it empty/);
  t.not(current(), v2, 'upgraded again');
});
