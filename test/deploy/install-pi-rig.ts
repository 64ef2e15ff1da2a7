// The installer's sandbox for the install-pi*.test.ts files: a throwaway root with the fakes of
// install-fakes.ts on PATH, a built checkout to install from, and a run of the installer in it.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { limit } from '../helpers/limits.js';
import { ROOT } from '../helpers/root.js';
import { copyInstaller, fakeMain, installerEnv, writeInstallFakes } from './install-fakes.js';
import { needTools } from '../helpers/tools.js';

needTools('bash');

const repo = ROOT;
export const PREFIX = '/opt/eb-test';

// The built CLI as far as the installer sees it: \`check --config FILE\` refuses a file holding
// "refused" (exit 2 and a line, as the real one does a setting out of range); a start logs its
// port and answers system/ping.
export const FAKE_MAIN = fakeMain(`  const file = process.argv[process.argv.indexOf('--config') + 1];
  if (!require('node:fs').readFileSync(file, 'utf8').includes('refused')) process.exit(0);
  console.error('edgeblocks: configuration error: alerts.remindHours: must be a number 0.25-720, got 0.1 (refused)');
  process.exit(2);`);
export const BROKEN_MAIN = "console.error('SyntaxError: the new release cannot start'); process.exit(1);\n";

export interface Sandbox {
  dir: string;
  root: string;
  src: string;
  state: string;
  env: NodeJS.ProcessEnv;
}

/** A sandbox removed when `t` ends. */
export function makeSandbox(t: { teardown(fn: () => void): void }): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'eb-install-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const root = join(dir, 'root');
  const src = join(dir, 'checkout');
  const state = join(dir, 'state');
  const bin = join(dir, 'bin');
  for (const d of [root, state, bin]) mkdirSync(d, { recursive: true });
  writeInstallFakes(bin, state);

  // A built checkout, with things that must not be copied.
  for (const d of ['dist/src/failsafe', 'systemd', 'scripts', 'docs', 'node_modules/x', '.git', 'src']) {
    mkdirSync(join(src, d), { recursive: true });
  }
  writeFileSync(join(src, 'package.json'), '{"name":"edgeblocks","version":"0.0.0-test"}\n');
  writeFileSync(join(src, 'package-lock.json'), '{"lockfileVersion":3}\n');
  writeFileSync(join(src, 'dist/src/main.js'), FAKE_MAIN);
  writeFileSync(join(src, 'dist/src/failsafe/index.js'), '// failsafe\n');
  writeFileSync(join(src, 'docs/raspberry-pi.md'), '# docs\n');
  writeFileSync(join(src, 'node_modules/x/index.js'), '');
  writeFileSync(join(src, '.git/HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(src, 'src/main.ts'), '');
  copyInstaller(repo, src);

  // A Pi OS config.txt: i2c commented out, and a trailing [cm5] section.
  mkdirSync(join(root, 'boot/firmware'), { recursive: true });
  writeFileSync(
    join(root, 'boot/firmware/config.txt'),
    '# http://rptl.io/configtxt\n#dtparam=i2c_arm=on\ndtparam=audio=on\ncamera_auto_detect=1\n\n[cm5]\ndtoverlay=dwc2,dr_mode=host\n',
  );
  return { dir, root, src, state, env: installerEnv(bin, state, root, PREFIX) };
}

export function install(sb: Sandbox, args: string[], env: NodeJS.ProcessEnv = {}) {
  writeFileSync(join(sb.state, 'calls'), '');
  const result = spawnSync('bash', [join(sb.src, 'scripts/install-pi.sh'), ...args], {
    env: { ...sb.env, ...env },
    encoding: 'utf8',
    timeout: limit(30000),
    killSignal: 'SIGKILL',
  });
  const calls = readFileSync(join(sb.state, 'calls'), 'utf8').split('\n').filter(Boolean);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, calls };
}

/** Every file under dir with a hash of its content and its mode. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      const st = lstatSync(path);
      if (st.isSymbolicLink()) out[relative(dir, path)] = `-> ${readlinkSync(path)}`;
      else if (st.isDirectory()) walk(path);
      else
        out[relative(dir, path)] =
          `${(st.mode & 0o777).toString(8)} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
    }
  };
  walk(dir);
  return out;
}
