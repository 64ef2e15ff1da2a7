// The installer's upgrades in a throwaway root (install-pi-rig.ts): releases staged, smoke-started
// and swapped, a failed or refused one changing nothing, --rollback, and an install from before releases.
// tags: slow (the installer in a sandbox, the service started from it)
import t from 'tap';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { needTools } from '../helpers/tools.js';
import { BROKEN_MAIN, FAKE_MAIN, PREFIX, install, makeSandbox } from './install-pi-rig.js';
import { limit } from '../helpers/limits.js';

// Each test runs the installer several times; on a loaded machine the file outlasts tap's 120 s.
t.setTimeout(limit(300_000));

needTools('bash');

t.test('upgrade: staged, smoke-started, swapped; a failed one changes nothing; --rollback goes back', async (t) => {
  const sb = makeSandbox(t);
  const prefix = join(sb.root, PREFIX);
  const releases = `${prefix}.releases`;
  const current = () => readlinkSync(prefix);
  const setVersion = (v: string) =>
    writeFileSync(join(sb.src, 'package.json'), `{"name":"edgeblocks","version":"${v}"}\n`);
  /** An upgrade that stopped left `running` (at `version`) as it was: not restarted, nothing of `staged` kept. */
  const untouched = (r: ReturnType<typeof install>, version: string, running: string, staged: string, how: string) => {
    t.match(r.stderr, new RegExp(`running release \\(${version.replaceAll('.', '\\.')}-[0-9a-f]+\\) is untouched`));
    t.equal(current(), running, `still on ${version}`);
    t.same(
      r.calls.filter((c) => c.startsWith('systemctl')),
      [],
      'the service was not restarted',
    );
    t.same(
      readdirSync(releases).filter((n) => n.startsWith(staged)),
      [],
      `no trace of the ${how} stage`,
    );
  };

  setVersion('1.0.0');
  const first = install(sb, ['--no-start']);
  t.equal(first.code, 0, first.stderr);
  t.ok(lstatSync(prefix).isSymbolicLink(), `${PREFIX} is a link to the release`);
  const v1 = current();
  t.match(v1, /^eb-test\.releases\/1\.0\.0-[0-9a-f]{12}$/, 'relative link into the releases directory');

  // A release that cannot start: the smoke start catches it before anything is switched.
  setVersion('2.0.0');
  writeFileSync(join(sb.src, 'dist/src/main.js'), BROKEN_MAIN);
  const broken = install(sb, []);
  t.equal(broken.code, 1, 'the installer fails');
  t.match(broken.stderr, /smoke start of the new release failed/);
  t.match(broken.stderr, /the new release cannot start/, 'its output is shown');
  untouched(broken, '1.0.0', v1, '2.0.0', 'failed');

  writeFileSync(join(sb.src, 'dist/src/main.js'), FAKE_MAIN);
  const good = install(sb, []);
  t.equal(good.code, 0, good.stderr);
  const v2 = current();
  t.match(v2, /2\.0\.0-/);
  t.equal(readlinkSync(join(releases, 'previous')), v1.split('/')[1], '1.0.0 kept as previous');
  t.ok(good.calls.includes('systemctl restart edgeblocks.service'));
  t.ok(existsSync(join(prefix, 'node_modules/.fake-npm')), 'npm ran in the new release');

  // A config file the running release takes and the new one refuses (a bound added since): the
  // upgrade stops with the new release's line; the service is not restarted into a start that
  // exits 2.
  const configPath = join(sb.root, 'etc/edgeblocks/config.json');
  const config = readFileSync(configPath, 'utf8');
  writeFileSync(configPath, `${config.trimEnd().slice(0, -1)}, "note": "refused"}\n`);
  setVersion('2.5.0');
  const refused = install(sb, []);
  t.equal(refused.code, 1, 'the installer fails');
  t.match(refused.stderr, /the new release refuses .*config\.json; the service would not start with it/);
  t.match(refused.stderr, /alerts\.remindHours: must be a number 0\.25-720, got 0\.1/, "with the new release's line");
  untouched(refused, '2.0.0', v2, '2.5.0', 'refused');
  writeFileSync(configPath, config);
  setVersion('2.0.0');

  const back = install(sb, ['--rollback']);
  t.equal(back.code, 0, back.stderr);
  t.equal(current(), v1, 'back on 1.0.0');
  t.equal(readlinkSync(join(releases, 'previous')), v2.split('/')[1], 'and 2.0.0 is the one to roll forward to');
  t.same(back.calls, ['systemctl restart edgeblocks.service']);

  // Three upgrades later only the current and the previous release are kept.
  for (const v of ['3.0.0', '4.0.0', '5.0.0']) {
    setVersion(v);
    t.equal(install(sb, ['--no-start']).code, 0);
  }
  t.same(
    readdirSync(releases)
      .filter((n) => n !== 'previous')
      .sort(),
    readdirSync(releases)
      .filter((n) => /^[45]\.0\.0-/.test(n))
      .sort(),
    'two releases kept',
  );
});

t.test('an install from before releases becomes the previous release', async (t) => {
  const sb = makeSandbox(t);
  const prefix = join(sb.root, PREFIX);
  mkdirSync(join(prefix, 'dist/src'), { recursive: true });
  writeFileSync(join(prefix, 'dist/src/main.js'), FAKE_MAIN);
  const result = install(sb, ['--no-start']);
  t.equal(result.code, 0, result.stderr);
  t.ok(lstatSync(prefix).isSymbolicLink());
  t.equal(readlinkSync(`${prefix}.releases/previous`), 'legacy');
  t.ok(existsSync(`${prefix}.releases/legacy/dist/src/main.js`), 'old tree kept for --rollback');
});

// A rollback restarts the service on the previous release with today's settings and data dir: a
// setting added since, or a database the newer release migrated, made it exit 2 at that restart,
// and the brewery had no control. The previous release is asked first (`edgeblocks check`, as an
// upgrade asks the new one); its refusal leaves the running release running.
t.test('--rollback asks the previous release first; a refusal keeps the running one', async (t) => {
  const sb = makeSandbox(t);
  const prefix = join(sb.root, PREFIX);
  const setVersion = (v: string) =>
    writeFileSync(join(sb.src, 'package.json'), `{"name":"edgeblocks","version":"${v}"}\n`);
  setVersion('1.0.0');
  t.equal(install(sb, ['--no-start']).code, 0);
  const v1 = readlinkSync(prefix);
  setVersion('2.0.0');
  t.equal(install(sb, ['--no-start']).code, 0);
  const v2 = readlinkSync(prefix);

  const configPath = join(sb.root, 'etc/edgeblocks/config.json');
  const config = readFileSync(configPath, 'utf8');
  writeFileSync(configPath, `${config.trimEnd().slice(0, -1)}, "note": "refused"}\n`);
  const refused = install(sb, ['--rollback']);
  t.equal(refused.code, 1, 'the rollback fails');
  t.match(refused.stderr, /the previous release refuses .*config\.json; the service would not start with it/);
  t.match(refused.stderr, /alerts\.remindHours: must be a number/, "with the previous release's line");
  t.match(refused.stderr, /still on 2\.0\.0-[0-9a-f]+/);
  t.equal(readlinkSync(prefix), v2, 'still on 2.0.0');
  t.same(refused.calls, [], 'the service was not restarted');

  writeFileSync(configPath, config);
  const back = install(sb, ['--rollback']);
  t.equal(back.code, 0, back.stderr);
  t.equal(readlinkSync(prefix), v1, 'back on 1.0.0');
  t.same(back.calls, ['systemctl restart edgeblocks.service']);
});
