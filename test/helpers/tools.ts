// The programs the tests run besides node, each with the Debian package that has it. A test (or
// the helper that starts the program) calls needTools() first: a missing one ends the test file
// with one line naming the package, before anything starts, instead of an error deep in a dump.
// `.ci/run` installs them all; test/suite/tools.test.ts checks every program a test starts is here.
import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';

export const TOOLS = {
  bash: 'bash',
  chromium: 'chromium',
  curl: 'curl',
  faketime: 'faketime',
  mkfifo: 'coreutils',
  mosquitto: 'mosquitto',
  mosquitto_passwd: 'mosquitto',
  mosquitto_pub: 'mosquitto-clients',
  mosquitto_sub: 'mosquitto-clients',
  mount: 'mount',
  openssl: 'openssl',
  python3: 'python3',
  script: 'bsdutils',
  socat: 'socat',
  'systemd-analyze': 'systemd',
  umount: 'mount',
  'victoria-metrics': 'victoria-metrics',
} as const;

export type Tool = keyof typeof TOOLS;

/** Where Debian puts libfaketime (the faketime package pulls it in); tests preload it. */
export const LIBFAKETIME = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/arm-linux-gnueabihf/faketime/libfaketime.so.1',
  '/usr/lib/faketime/libfaketime.so.1',
].find((f) => existsSync(f));

/** Debian's Chromium, or the one CHROMIUM_PATH names. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether the program can be started: found on PATH (or, for chromium and faketime, where the tests take it from). */
export function hasTool(tool: Tool, env: NodeJS.ProcessEnv = process.env): boolean {
  if (tool === 'chromium') return executable(CHROMIUM);
  if (tool === 'faketime') return LIBFAKETIME !== undefined;
  return (env.PATH ?? '').split(path.delimiter).some((dir) => dir && executable(path.join(dir, tool)));
}

/** The one line for the missing programs, naming the Debian packages; undefined when all are there. */
export function missingToolsLine(tools: Tool[], env: NodeJS.ProcessEnv = process.env): string | undefined {
  const missing = tools.filter((tool) => !hasTool(tool, env));
  if (missing.length === 0) return undefined;
  const packages = [...new Set(missing.map((tool) => TOOLS[tool]))];
  return `this test needs ${missing.join(', ')}: apt-get install ${packages.join(' ')} (Debian; .ci/run installs every test tool)`;
}

/** Ends the test file (exit code 1, a failure, never a skip) with one line when a program is missing. */
export function needTools(...tools: Tool[]): void {
  const line = missingToolsLine(tools);
  if (line === undefined) return;
  process.stderr.write(`${line}\n`);
  process.exit(1);
}
