// Spawn the built CLI (dist/src/main.js) as a child process and find its HTTP port.
import { spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { spawnOwned, waitForOutput, type Owner } from './children.js';
import { limit } from './limits.js';

import { ROOT } from './root.js';

export { ROOT };
export const CLI = path.join(ROOT, 'dist/src/main.js');

export interface RunningCli {
  child: ChildProcess;
  port: number;
  base: string;
  output: () => string;
  /** The first match of `pattern` in the output, waiting for it (a log line can trail the socket it names). */
  waitFor: (pattern: RegExp, what: string, limitMs?: number) => Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

const START_LIMIT_MS = 15000;

/** `npm run demo`'s script, run on the built service. Start it with startDemo. */
export const DEMO = path.join(ROOT, 'scripts/demo.js');

/**
 * The demo's start limit (scaled by limit()): demo.js loads the service's some 600 plain modules
 * (not the bundle with its code cache the CLI starts from) and seeds its data dir before it
 * listens: 7 s beside two CPU burners, and past the CLI's 15 s in one run.
 */
export const DEMO_START_LIMIT_MS = 45_000;

/**
 * Starts the CLI and waits for its HTTP port. The child is killed if it does not report the
 * port within the (scaled) limit, when the owning test ends, and when the test process exits.
 */
export async function startCli(args: string[], env: NodeJS.ProcessEnv = {}, owner?: Owner): Promise<RunningCli> {
  return startScript(CLI, ['--port', '0', '--https-port', '0', ...args], env, owner);
}

/** The demo (scripts/demo.js) started with `args`, waited for until it reports its HTTP port, within the demo's start limit. */
export async function startDemo(args: string[], env: NodeJS.ProcessEnv = {}, owner?: Owner): Promise<RunningCli> {
  return startScript(DEMO, args, env, owner, limit(DEMO_START_LIMIT_MS));
}

/** startCli for any script that prints "http listening on HOST:PORT" (also a stub, in tests). */
export async function startScript(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  owner?: Owner,
  limitMs = limit(START_LIMIT_MS),
): Promise<RunningCli> {
  const child = spawnOwned(
    process.execPath,
    [script, ...args],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    owner,
  );
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  // 'exit' can come before the last output is read; 'close' comes after it (unless something the
  // child started still holds its stdout, hence the bound).
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      const timer = setTimeout(() => resolve(code), 2000);
      child.once('close', () => {
        clearTimeout(timer);
        resolve(code);
      });
    }),
  );
  const m = await waitForOutput(
    child,
    /http listening on (?:https?:\/\/)?[^:\s]*:(\d+)/,
    `${path.basename(script)} reporting its HTTP port`,
    limitMs,
    () => out,
  );
  const port = Number(m[1]);
  const output = () => out;
  const waitFor = (pattern: RegExp, what: string, ms = limit(START_LIMIT_MS)) =>
    waitForOutput(child, pattern, what, ms, output);
  return { child, port, base: `http://127.0.0.1:${port}`, output, waitFor, exited };
}

export async function postJson(url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * `edgeblocks user ARGS --data-dir DIR` as a child, `input` typed on its stdin; with `maxFile`, under
 * a file size limit of that many bytes (bash's ulimit -f, in KiB: it holds as root too).
 */
export function runUser(dataDir: string, args: readonly string[], input = '', maxFile?: number) {
  const argv = [CLI, 'user', ...args, '--data-dir', dataDir];
  const [cmd, cmdArgs] =
    maxFile === undefined
      ? [process.execPath, argv]
      : ['bash', ['-c', `ulimit -f ${maxFile / 1024} && exec "$@"`, 'bash', process.execPath, ...argv]];
  return spawnSync(cmd, cmdArgs, { input, encoding: 'utf8', timeout: limit(30_000), killSignal: 'SIGKILL' });
}

/** `edgeblocks user add NAME [--role ROLE]` on `dataDir`, the password typed as a user types it. */
export function addUser(dataDir: string, name: string, password: string, role?: string): void {
  const add = runUser(dataDir, ['add', name, ...(role ? ['--role', role] : [])], `${password}\n`);
  if (add.status !== 0) throw new Error(`edgeblocks user add failed: ${add.stderr}`);
}
