// The V8 heap flags of the CLI (a capped young generation: idle RSS) are the same wherever it
// is started: the bin's shebang, the systemd unit, `npm start`; and Node accepts them there.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { limit } from '../helpers/limits.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const shebang = readFileSync(join(repo, 'src/main.ts'), 'utf8').split('\n', 1)[0]!;
const flags = /^#!\/usr\/bin\/env -S node (.+)$/.exec(shebang)?.[1] ?? '';

t.test('the shebang passes heap flags to node', async (t) => {
  t.match(flags, /--max-semi-space-size=\d+/, shebang);
});

t.test('the systemd unit and npm start use the same flags', async (t) => {
  const unit = readFileSync(join(repo, 'systemd/edgeblocks.service'), 'utf8');
  t.match(unit, new RegExp(`^Environment=NODE_OPTIONS=${flags}$`, 'm'));
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  t.equal(pkg.scripts.start, `node ${flags} dist/src/main.js`);
});

t.test('node accepts them, as arguments and in NODE_OPTIONS', async (t) => {
  const main = join(repo, 'dist/src/main.js');
  const { version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
  for (const [how, args, env] of [
    ['arguments', [...flags.split(' '), main, '--version'], process.env],
    ['NODE_OPTIONS', [main, '--version'], { ...process.env, NODE_OPTIONS: flags }],
  ] as const) {
    const run = spawnSync(process.execPath, args, { encoding: 'utf8', env, timeout: limit(30000) });
    t.equal(run.status, 0, `${how}: ${run.stderr}`);
    t.equal(run.stdout.trim(), version, how);
  }
});
