// The installer's check of a release (`edgeblocks check`, the real built CLI here) and the config
// file the unit gives (--config /etc/edgeblocks/config.json): EDGEBLOCKS_CONFIG in a drop-in
// naming another file, which the service's start refuses, stops an upgrade and a rollback; one
// naming the unit's own file passes, also on a first install, before the installer has written
// that file (the check stands the default file in for it). A rollback under DESTDIR is checked by
// the previous release as an upgrade is, with --root DESTDIR, and a refused one says to run the
// rollback again, not the installer. Same sandbox as install-pi.test.ts.
// tags: slow (the installer in a sandbox)
import t from 'tap';
import { mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
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

const dropIn = (sb: Sandbox, file: string) =>
  put(
    sb,
    'etc/systemd/system/edgeblocks.service.d/override.conf',
    `[Service]\nEnvironment=EDGEBLOCKS_CONFIG=${file}\n`,
  );

const version = (sb: Sandbox, v: string) =>
  writeFileSync(join(sb.src, 'package.json'), `{"name":"edgeblocks","version":"${v}"}\n`);

t.test("a drop-in's EDGEBLOCKS_CONFIG: the unit's own file passes, another stops the upgrade", async (t) => {
  const sb = makeSandbox(t);
  writeFileSync(join(sb.src, 'dist/src/main.js'), REAL_CHECK);
  dropIn(sb, '/etc/edgeblocks/config.json');
  const first = install(sb, ['--no-start']);
  t.equal(first.code, 0, `a first install, the config file not written yet: ${first.stderr}`);
  const v1 = readlinkSync(join(sb.root, PREFIX));

  dropIn(sb, '/etc/edgeblocks/brew.json');
  put(sb, 'etc/edgeblocks/brew.json', '{ "serviceId": "brew" }\n');
  version(sb, '2.0.0');
  const up = install(sb, ['--no-start']);
  t.equal(up.code, 1, 'the upgrade stops');
  t.match(
    up.stderr,
    `EDGEBLOCKS_CONFIG is "/etc/edgeblocks/brew.json", but --config gives ${JSON.stringify(join(sb.root, 'etc/edgeblocks/config.json'))}`,
  );
  t.match(up.stderr, 'EDGEBLOCKS_CONFIG from /etc/systemd/system/edgeblocks.service.d/override.conf');
  t.equal(readlinkSync(join(sb.root, PREFIX)), v1, 'still on the first release');
});

t.test("a drop-in naming the unit's own file spelt otherwise passes a first install", async (t) => {
  const sb = makeSandbox(t);
  writeFileSync(join(sb.src, 'dist/src/main.js'), REAL_CHECK);
  dropIn(sb, '/etc/edgeblocks//./config.json');
  const first = install(sb, ['--no-start']);
  t.equal(first.code, 0, `the service takes it as its own file: ${first.stderr}`);
});

t.test('a first install refused for a drop-in naming another file names the file to be written', async (t) => {
  const sb = makeSandbox(t);
  writeFileSync(join(sb.src, 'dist/src/main.js'), REAL_CHECK);
  dropIn(sb, '/etc/edgeblocks/brew.json');
  put(sb, 'etc/edgeblocks/brew.json', '{ "serviceId": "brew" }\n');
  const first = install(sb, ['--no-start']);
  t.equal(first.code, 1, 'refused');
  t.match(first.stderr, 'but --config gives "/etc/edgeblocks/config.json (not written yet)"');
  t.notMatch(first.stderr, /tmp\.\w+\/config\.json/, 'not the stand-in the brewer never sees');
});

t.test('a rollback under DESTDIR is checked with --root; a refused one says to run the rollback again', async (t) => {
  const sb = makeSandbox(t);
  writeFileSync(join(sb.src, 'dist/src/main.js'), REAL_CHECK);
  version(sb, '1.0.0');
  t.equal(install(sb, ['--no-start']).code, 0);
  const v1 = readlinkSync(join(sb.root, PREFIX));
  version(sb, '2.0.0');
  t.equal(install(sb, ['--no-start']).code, 0);
  // The config file as on the Pi: its dataDir holds only where the check knows the root.
  put(sb, 'etc/edgeblocks/config.json', '{ "serviceId": "edge-one", "dataDir": "/var/lib/edgeblocks" }\n');
  mkdirSync(join(sb.root, 'var/lib/edgeblocks'), { recursive: true });

  dropIn(sb, '/etc/edgeblocks/brew.json');
  const refused = install(sb, ['--rollback']);
  t.equal(refused.code, 1, 'the rollback stops');
  t.match(refused.stderr, 'EDGEBLOCKS_CONFIG is "/etc/edgeblocks/brew.json", but --config gives');
  t.match(refused.stderr, /then run the rollback again/);
  t.notMatch(refused.stderr, /run the installer again/, 'not the installer');
  t.same(refused.calls, [], 'the service was not restarted');

  dropIn(sb, '/etc/edgeblocks/config.json');
  const back = install(sb, ['--rollback']);
  t.equal(back.code, 0, back.stderr);
  t.equal(readlinkSync(join(sb.root, PREFIX)), v1, 'back on 1.0.0');
});

// Releases from before `check --root` (2026-11-30) refuse the flag itself, and releases from
// before `check` (2026-11-29) the word: a rollback under DESTDIR to the first was refused as if
// the settings were wrong ("the service would not start with them"). The first is now asked as
// its own installer asked it (without --root). A release from before `check` cannot be asked at
// all: the rollback always stopped there, so the one way back to such a release (the reason a
// rollback is kept) was closed. It now goes back, saying the settings were not checked and how
// to return; the oldest releases (before 2026-11-25) refused the word as an unknown option.
const OLD_CHECK = (record: string, line: string, refuses: (argv: string) => boolean) =>
  fakeMain(`  const argv = process.argv.slice(2);
  require('node:fs').appendFileSync(${JSON.stringify(record)}, JSON.stringify(argv) + '\\n');
  if (!(${refuses.toString()})(argv.join(' '))) process.exit(0);
  console.error(${JSON.stringify(line)});
  process.exit(2);`);

t.test('a rollback to a release from before check --root, or before check', async (t) => {
  for (const old of [
    {
      what: 'before --root',
      line: 'edgeblocks: configuration error: --root: unknown option; did you mean "--port"? (see --help)',
      refuses: (argv: string) => argv.includes('--root'),
      checked: true,
    },
    {
      what: 'before check',
      line: 'edgeblocks: configuration error: "check": unexpected argument; commands: help, version, user, doctor (see --help)',
      refuses: (_argv: string) => true,
      checked: false,
    },
    {
      what: 'before check, 2026-11-24',
      line: 'edgeblocks: configuration error: check: unknown option; see --help',
      refuses: (_argv: string) => true,
      checked: false,
    },
  ]) {
    const sb = makeSandbox(t);
    const record = join(sb.dir, 'old-check');
    writeFileSync(join(sb.src, 'dist/src/main.js'), OLD_CHECK(record, old.line, old.refuses));
    version(sb, '1.0.0');
    t.equal(install(sb, ['--no-start']).code, 0, old.what);
    const v1 = readlinkSync(join(sb.root, PREFIX));
    writeFileSync(join(sb.src, 'dist/src/main.js'), REAL_CHECK);
    version(sb, '2.0.0');
    t.equal(install(sb, ['--no-start']).code, 0);
    const v2 = readlinkSync(join(sb.root, PREFIX));
    writeFileSync(record, '');
    const back = install(sb, ['--rollback']);
    t.equal(back.code, 0, `${old.what}: ${back.stderr}`);
    t.equal(readlinkSync(join(sb.root, PREFIX)), v1, `${old.what}: back on 1.0.0`);
    t.ok(
      back.calls.some((c) => c.includes('restart')),
      `${old.what}: the service restarted (${back.calls})`,
    );
    t.equal(
      readlinkSync(join(sb.root, `${PREFIX}.releases/previous`))
        .split('/')
        .at(-1),
      v2.split('/').at(-1),
      'the newer one kept as previous',
    );
    if (old.checked) {
      const asked = readFileSync(record, 'utf8').trim().split('\n').at(-1);
      t.notMatch(asked, '--root', `asked as its own installer asked it: ${asked}`);
      t.match(asked, '--config');
    } else {
      t.match(back.stderr, /the previous release has no `edgeblocks check`.*not checked/s, old.what);
      t.match(back.stderr, /--rollback again/, 'says how to return');
      t.notMatch(back.stderr, /the service would not start/, 'not blamed on the settings');
    }
  }
});

// A drop-in's ExecStart naming another --config (`sudo systemctl edit edgeblocks`) is the file the
// service reads; the installer's check threw it away and checked the unit's file, so a value the
// new release refuses in the drop-in's file passed and the service stopped at its restart.
t.test("the config file of a drop-in's ExecStart is the one the check reads", async (t) => {
  const sb = makeSandbox(t);
  writeFileSync(join(sb.src, 'dist/src/main.js'), REAL_CHECK);
  const first = install(sb, ['--no-start']);
  t.equal(first.code, 0, first.stderr);
  const v1 = readlinkSync(join(sb.root, PREFIX));
  put(
    sb,
    'etc/systemd/system/edgeblocks.service.d/override.conf',
    `[Service]\nExecStart=\nExecStart=/usr/bin/node ${PREFIX}/dist/src/main.js --config /etc/edgeblocks/brew.json --data-dir /var/lib/edgeblocks\n`,
  );
  put(sb, 'etc/edgeblocks/brew.json', '{ "port": "many" }\n');
  version(sb, '2.0.0');
  const up = install(sb, ['--no-start']);
  t.equal(up.code, 1, 'the upgrade stops');
  t.match(up.stderr, /brew\.json/);
  t.match(up.stderr, /port/);
  t.equal(readlinkSync(join(sb.root, PREFIX)), v1, 'still on the first release');

  // The unit's own file is not the service's: a value refused there does not stop the upgrade.
  put(sb, 'etc/edgeblocks/brew.json', '{ "serviceId": "brew" }\n');
  put(sb, 'etc/edgeblocks/config.json', '{ "port": "many" }\n');
  const again = install(sb, ['--no-start']);
  t.equal(again.code, 0, again.stderr);
  t.not(readlinkSync(join(sb.root, PREFIX)), v1, 'upgraded');
});
