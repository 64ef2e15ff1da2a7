// edgeblocks-failsafe as `npm run build` compiled it, copied with only what it imports into a
// temporary directory, and run as a child process: shared by test/deploy/failsafe.test.ts and
// failsafe-schema.test.ts. Not a test file itself.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import type { Test } from 'tap';
import { limit } from '../helpers/limits.js';
import { ROOT } from '../helpers/root.js';

export interface FailsafeCommand {
  /** The modules copied (relative to dist), the command's own first. */
  copied: string[];
  /** Imports of the command that dist does not hold. */
  missing: string[];
  run(args: string[], env?: NodeJS.ProcessEnv): { code: number | null; stdout: string; stderr: string };
  /** A config file (JSON of `config`, or `config` itself if a string), removed when `t` ends. */
  writeConfig(config: unknown): string;
}

/** The command as `npm run build` compiled it, with only what it imports; removed when `t` ends. */
export function failsafeCommand(t: Test): FailsafeCommand {
  const repo = ROOT;
  const out = mkdtempSync(join(tmpdir(), 'eb-failsafe-build-'));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));

  // Followed from its import statements: it must run without the rest of the service.
  const imports = /(?:\bfrom|^\s*import|\bimport\()\s*['"](\.{1,2}\/[^'"]+)['"]/gm;
  const copied: string[] = [];
  const missing: string[] = [];
  function copyWithImports(file: string): void {
    const rel = relative(join(repo, 'dist'), file);
    if (copied.includes(rel)) return;
    if (!existsSync(file)) {
      missing.push(rel);
      return;
    }
    copied.push(rel);
    mkdirSync(dirname(join(out, rel)), { recursive: true });
    const code = readFileSync(file, 'utf8');
    writeFileSync(join(out, rel), code);
    for (const m of code.matchAll(imports)) copyWithImports(resolve(dirname(file), m[1]!));
  }
  copyWithImports(join(repo, 'dist/src/failsafe/index.js'));
  writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
  // As installed: the package's dependencies (the config schema's typebox) next to the command.
  symlinkSync(join(repo, 'node_modules'), join(out, 'node_modules'));
  const failsafe = join(out, 'src/failsafe/index.js');

  return {
    copied,
    missing,
    run(args, env = {}) {
      const result = spawnSync(process.execPath, [failsafe, ...args], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, ...env },
        timeout: limit(15000),
        killSignal: 'SIGKILL',
      });
      return { code: result.status, stdout: result.stdout, stderr: result.stderr };
    },
    writeConfig(config) {
      const dir = mkdtempSync(join(tmpdir(), 'eb-failsafe-'));
      t.teardown(() => rmSync(dir, { recursive: true, force: true }));
      const path = join(dir, 'config.json');
      writeFileSync(path, typeof config === 'string' ? config : JSON.stringify(config));
      return path;
    },
  };
}

export const level = (root: string, n: number) => readFileSync(join(root, `gpio${n}`, 'value'), 'utf8').trim();
export const direction = (root: string, n: number) => readFileSync(join(root, `gpio${n}`, 'direction'), 'utf8').trim();

export const GPIO = [
  { name: 'heater', line: 17, direction: 'out', activeLow: true },
  { name: 'cooler', line: 27, direction: 'out', activeLow: true, safeState: false },
  { name: 'fan', line: 22, direction: 'out' },
  { name: 'pump', line: 23, direction: 'out', activeLow: true, safeState: true },
  { name: 'door', line: 5, direction: 'in' },
];
