// A laid-out system root for the checks of the installed unit (`edgeblocks check|doctor --root`):
// the unit as shipped, a drop-in, its config file and data dir; and the built CLI run on it.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { CLI, ROOT } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

/** The unit's ExecStart up to its flags, for a drop-in's own ExecStart. */
export const NODE_LINE = '/usr/bin/node /opt/edgeblocks/dist/src/main.js';

/** A directory of the test's own, removed after it. */
export function tmp(t: Test, prefix = 'edgeblocks-unit-root-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A root with the unit, its data dir, the drop-in `dropIn` when given, and its config file
 * /etc/edgeblocks/config.json holding `config` (none when null).
 */
export function unitRoot(t: Test, o: { dropIn?: string; config?: string | null } = {}): string {
  const root = path.join(tmp(t), 'root');
  const units = path.join(root, 'etc/systemd/system');
  mkdirSync(path.join(units, 'edgeblocks.service.d'), { recursive: true });
  copyFileSync(path.join(ROOT, 'systemd/edgeblocks.service'), path.join(units, 'edgeblocks.service'));
  if (o.dropIn !== undefined) writeFileSync(path.join(units, 'edgeblocks.service.d/override.conf'), o.dropIn);
  mkdirSync(path.join(root, 'etc/edgeblocks'), { recursive: true });
  if (o.config !== null) writeFileSync(path.join(root, 'etc/edgeblocks/config.json'), o.config ?? '{}');
  mkdirSync(path.join(root, 'var/lib/edgeblocks'), { recursive: true, mode: 0o700 });
  return root;
}

/** Writes `text` to `file` under the root, making its directories. */
export function put(root: string, file: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

/** `edgeblocks COMMAND --root ROOT ...args`, run from a directory of its own (not the service's). */
export function runOn(t: Test, root: string, command: string, args: string[] = []) {
  const r = spawnSync(process.execPath, [CLI, command, '--root', root, ...args], {
    cwd: tmp(t),
    encoding: 'utf8',
    timeout: limit(30_000),
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
