// A config file an older release took and this one refuses. test/fixtures/upgrade/config-2026-11-27.json
// started the release of 2026-11-27 (3fadb4e); this release bounds alerts.remindHours (0.25-720 h,
// 60d8ed1), so the service, restarted by the installer after the swap, exited 2 with no control.
// The installer now asks the staged release `edgeblocks check --config FILE` first (its refusal is
// test/deploy/install-pi-releases.test.ts); this is that word on the built CLI: it reads the configuration as a
// start does, answers 2 with the start's one line or 0, and starts nothing. Needs `npm run build`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { CLI, ROOT } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const OLDER = path.join(ROOT, 'test/fixtures/upgrade/config-2026-11-27.json');

function check(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [CLI, 'check', ...args], {
    encoding: 'utf8',
    timeout: limit(30_000),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

t.test('the older release’s config is refused with the line a start gives, and nothing starts', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-check-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = path.join(dir, 'data');
  const refused = check(['--config', OLDER, '--data-dir', dataDir]);
  t.equal(refused.code, 2, refused.err);
  t.equal(
    refused.err.trim(),
    'edgeblocks: configuration error: alerts.remindHours: must be a number 0.25-720, in hours (0.5 is 30 min), got 0.1',
    'one line naming the setting, its range and its unit',
  );
  t.notOk(existsSync(dataDir), 'no data dir was made');

  // The same file with the setting in range holds; env and flags count as for a start.
  const fixed = path.join(dir, 'config.json');
  const config = JSON.parse(readFileSync(OLDER, 'utf8'));
  config.alerts.remindHours = 0.25;
  writeFileSync(fixed, JSON.stringify(config));
  const ok = check(['--config', fixed, '--data-dir', dataDir]);
  t.equal(ok.code, 0, ok.err);
  t.match(ok.out, new RegExp(`the configuration \\(${fixed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) is valid`));
  t.notOk(existsSync(dataDir), 'still nothing started');
  const badEnv = check(['--config', fixed], { EDGEBLOCKS_EMIT_INTERVAL: 'soon' });
  t.equal(badEnv.code, 2);
  t.match(badEnv.err, /EDGEBLOCKS_EMIT_INTERVAL|emitInterval/);
  const badFlag = check(['--config', fixed, '--port', 'x']);
  t.equal(badFlag.code, 2);
  t.match(badFlag.err, /--port/);
});
