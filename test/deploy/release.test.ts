// The release artifact end to end on this machine's architecture: scripts/release.sh packs the
// build with its production modules, the installer shipped inside it installs it with --from into
// a throwaway root (no npm, no compiler on PATH), and the installed service starts, tells its
// version and stores and reads a block.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, postJson, startScript } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { installerEnv, writeInstallFakes } from './install-fakes.js';
import { needTools } from '../helpers/tools.js';

needTools('bash');

const PREFIX = '/opt/eb-release';
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const major = process.versions.node.split('.')[0];
// What a Pi without build tools has: any of these called fails the install.
const NO_BUILD_TOOLS = Object.fromEntries(
  ['npm', 'npx', 'cc', 'gcc', 'g++', 'make', 'tsc'].map((tool) => [tool, `echo "${tool} must not run" >&2; exit 97`]),
);

t.test('build the artifact, install it with --from, run the installed service', async (t) => {
  const dir = t.testdir();
  const out = join(dir, 'out');
  // npm's record of the checkout's tree, which the prune of the (hard-linked) copy must not rewrite.
  const hidden = join(ROOT, 'node_modules/.package-lock.json');
  const hiddenBefore = existsSync(hidden) ? readFileSync(hidden, 'utf8') : null;
  const built = spawnSync('bash', [join(ROOT, 'scripts/release.sh'), '--skip-build', '--out', out], {
    encoding: 'utf8',
    timeout: limit(180000),
    killSignal: 'SIGKILL',
  });
  t.equal(built.status, 0, built.stderr);
  if (hiddenBefore !== null)
    t.equal(
      readFileSync(hidden, 'utf8'),
      hiddenBefore,
      "the checkout's node_modules/.package-lock.json is unchanged (its dev dependencies still listed)",
    );
  const file = built.stdout.trim().split('\n').at(-1)!;
  t.equal(
    file,
    join(out, `edgeblocks-${pkg.version}-linux-${process.arch}-node${major}.tar.gz`),
    'named by version, arch and Node',
  );

  const listing = spawnSync('tar', ['-tzf', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout.split(
    '\n',
  );
  const top = `edgeblocks-${pkg.version}/`;
  t.ok(
    listing.every((entry) => entry === '' || entry.startsWith(top)),
    'one top directory',
  );
  for (const needed of [
    'release.json',
    'dist/src/main.js',
    'dist/bundle/app.cjs',
    'dist/web/index.html',
    'scripts/install-pi.sh',
  ])
    t.ok(listing.includes(top + needed), `ships ${needed}`);
  t.ok(
    listing.some((entry) => /node_modules\/better-sqlite3\/build\/Release\/better_sqlite3\.node$/.test(entry)),
    'ships the compiled SQLite binding',
  );
  for (const dev of ['typescript', 'tap', 'vite', 'rolldown', '@biomejs/biome', 'playwright-core'])
    t.notOk(
      listing.some((entry) => entry.startsWith(`${top}node_modules/${dev}/`)),
      `no dev dependency ${dev}`,
    );
  t.notOk(
    listing.some((entry) => entry.startsWith(`${top}src/`) || entry.startsWith(`${top}dist/test/`)),
    'no TypeScript sources or tests',
  );

  // The Pi: an unpacked artifact, a throwaway root, fake system commands and no build tools.
  const root = join(dir, 'root');
  const bin = join(dir, 'bin');
  const state = join(dir, 'state');
  const pi = join(dir, 'pi');
  for (const d of [root, bin, state, pi]) mkdirSync(d, { recursive: true });
  writeInstallFakes(bin, state, NO_BUILD_TOOLS);
  t.equal(spawnSync('tar', ['-xzf', file, '-C', pi]).status, 0, 'tar unpacks it');
  const installer = join(pi, top, 'scripts/install-pi.sh');
  const env = installerEnv(bin, state, root, PREFIX);
  const installed = spawnSync('bash', [installer, '--from', file, '--no-start'], {
    env,
    encoding: 'utf8',
    timeout: limit(180000),
    killSignal: 'SIGKILL',
  });
  t.equal(installed.status, 0, `${installed.stdout}\n${installed.stderr}`);
  t.match(installed.stdout, /node modules from the artifact \(no npm, no compiler\)/);
  const calls = readFileSync(join(state, 'calls'), 'utf8');
  t.notMatch(calls, /^(npm|npx|cc|gcc|g\+\+|make|tsc) /m, 'no build tool was called');
  t.match(calls, /^systemctl enable edgeblocks\.service$/m, 'the service is enabled');

  const prefix = join(root, PREFIX);
  t.ok(lstatSync(prefix).isSymbolicLink(), `${PREFIX} links to the release`);
  const release = readdirSync(`${prefix}.releases`).find((name) => name.startsWith(pkg.version));
  t.ok(release, 'the release directory is named by the version');
  t.same(JSON.parse(readFileSync(join(prefix, 'release.json'), 'utf8')).arch, process.arch);
  t.ok(existsSync(join(root, 'etc/systemd/system/edgeblocks.service')), 'the unit is installed');
  t.ok(existsSync(join(root, 'etc/edgeblocks/config.json')), 'a config is written');

  const main = join(prefix, 'dist/src/main.js');
  const version = spawnSync(process.execPath, [main, '--version'], { encoding: 'utf8', timeout: limit(30000) });
  t.equal(version.stdout.trim(), pkg.version, 'the installed CLI tells its version');

  const data = join(dir, 'data');
  const cli = await startScript(
    main,
    ['--hardware', 'sim', '--port', '0', '--https-port', '0', '--mqtt-port', '0', '--data-dir', data],
    { PATH: env.PATH },
    t,
  );
  t.teardown(() => void cli.child.kill('SIGKILL'));
  const created = await postJson(`${cli.base}/edge-one/blocks/create`, {
    id: 'From the artifact',
    type: 'TempSensorMock',
    data: { setting: 19.5 },
  });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const read = await postJson(`${cli.base}/edge-one/blocks/read`, { id: 'From the artifact' });
  t.equal(read.status, 200);
  t.equal(
    read.body.data.value.value,
    19.5,
    'the installed service stores and reads a block (its SQLite binding loads)',
  );
  const index = await fetch(`${cli.base}/api`);
  t.equal(index.status, 200);
  t.match(await index.json(), { name: 'edgeblocks', version: pkg.version }, 'the API reports the same version');
});

t.test('--from refuses a file that is not a release, and an artifact built for another machine', async (t) => {
  const dir = t.testdir();
  const root = join(dir, 'root');
  const bin = join(dir, 'bin');
  const state = join(dir, 'state');
  for (const d of [root, bin, state]) mkdirSync(d, { recursive: true });
  writeInstallFakes(bin, state);
  const env = installerEnv(bin, state, root, PREFIX);
  const install = (file: string) =>
    spawnSync('bash', [join(ROOT, 'scripts/install-pi.sh'), '--from', file, '--no-start'], {
      env,
      encoding: 'utf8',
      timeout: limit(30000),
    });

  t.match(install(join(dir, 'missing.tar.gz')).stderr, /--from .*missing\.tar\.gz: no such file/);
  writeFileSync(join(dir, 'junk.tar.gz'), 'not a tarball');
  const junk = install(join(dir, 'junk.tar.gz'));
  t.equal(junk.status, 1);
  t.match(junk.stderr, /not a release tarball/);

  // A release for the other architecture: the same layout, another release.json.
  const other = process.arch === 'arm64' ? 'x64' : 'arm64';
  const tree = join(dir, 'other', `edgeblocks-${pkg.version}`);
  mkdirSync(join(tree, 'dist/src'), { recursive: true });
  mkdirSync(join(tree, 'node_modules'), { recursive: true });
  writeFileSync(join(tree, 'dist/src/main.js'), '');
  writeFileSync(
    join(tree, 'release.json'),
    JSON.stringify({ version: pkg.version, platform: 'linux', arch: other, node: '22.12.0', modules: '127' }),
  );
  const artifact = join(dir, `edgeblocks-${pkg.version}-linux-${other}-node22.tar.gz`);
  spawnSync('tar', ['-czf', artifact, '-C', join(dir, 'other'), `edgeblocks-${pkg.version}`]);
  const wrong = install(artifact);
  t.equal(wrong.status, 1);
  t.match(
    wrong.stderr,
    new RegExp(
      `built for linux-${other} and Node 22\\.12\\.0 \\(module ABI 127\\).*take the edgeblocks-\\*-linux-${process.arch}-node${major}\\.tar\\.gz artifact`,
    ),
  );
  t.notOk(existsSync(join(root, PREFIX)), 'nothing was installed');
});
