#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=2
// CLI entry: configuration, start, signals. Bad configuration is one line and exit code 2.
import module from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Config, ParsedArgs } from './config.js';
import { notifyReady, notifyStopping, setNotifyErrorHandler, Watchdog } from './service/notify.js';
import { VERSION } from './shared/version.js';
import { pickAppModule } from './service/app-module.js';
import { cacheDirectory, loadCommonJs } from './service/code-cache.js';

/** EX_TEMPFAIL: the service asks its supervisor to start it again. */
const RESTART_EXIT_CODE = 75;
const SHUTDOWN_LIMIT_MS = 5000;
const CRASH_SAFE_STATE_MS = 1000;

/** An error a user fixes (src/shared/errors.ts: told by a brand, whichever copy of its class threw
 *  it, the bundle's or the plain modules'): its one line and exit code 2. */
function exitIfFixable(line: string | null): void {
  if (line === null) return;
  process.stderr.write(`edgeblocks: ${line}\n`);
  process.exit(2);
}

/**
 * `edgeblocks check`: the configuration and data dir as a start reads them, starting nothing. The
 * installer asks a release it stages whether the service's config file and data dir still hold
 * (it gives both). Given neither, it checks what the installed service uses, as the doctor and
 * the user command take it: the config file, data dir and unit variables under --root (or /).
 */
async function check(args: ParsedArgs, app: typeof import('./app.js')): Promise<void> {
  // The unit's reader needs node:fs alone; the config's modules come from the bundle with the app's.
  const unit = await import('./doctor/unit-environment.js');
  const unitLine = await import('./doctor/unit-command-line.js');
  const root = args.root ?? '/';
  const problem = unit.notARoot(root);
  if (problem) throw new app.ConfigError('--root', `${root}: ${problem}`);
  const env = process.env;
  const given = [args.values.config, env.EDGEBLOCKS_CONFIG, args.values.dataDir, env.EDGEBLOCKS_DATA_DIR];
  const asService = given.every((v) => v === undefined);
  // Given a data dir of its own but no config file, the config file is still the one the unit
  // gives the service (or none, as the service): its --config or EDGEBLOCKS_CONFIG, not its other settings.
  const unitsConfig = !asService && args.values.config === undefined && env.EDGEBLOCKS_CONFIG === undefined;
  const variables = asService || unitsConfig ? unit.serviceVariables(root, { dataDir: unitsConfig }) : new Map();
  const fromUnit = asService ? variables : new Map([...variables].filter(([name]) => name === 'EDGEBLOCKS_CONFIG'));
  const line = unitLine.serviceCommandLine(root);
  const commandLine = asService ? line : null;
  const serviceFile = commandLine ?? (unitsConfig && line ? app.unitConfigOnly(line) : null);
  const several = unitLine.severalExecStart(commandLine);
  if (several) console.error(`edgeblocks: warning: ${several}`);
  for (const warning of commandLine?.warnings ?? []) console.error(`edgeblocks: warning: ${warning}`);
  try {
    // Given a file or dir of its own (the installer gives both), the unit's flags are not the
    // check's; but a relative certificate in the unit's file is still found from the directory
    // systemd starts the service in, as the service finds it, not from the one the check runs in.
    const unitDir = line && { args: [], from: line.from, workingDirectory: line.workingDirectory };
    const config = app.loadInstalledConfig(args.values, env, root, fromUnit, serviceFile ?? unitDir);
    for (const warning of app.checkDataDir(config)) console.error(`edgeblocks: warning: ${warning}`);
    const cert =
      config.httpsPort > 0 && config.httpsCert ? app.certificateFileWarning(config.httpsCert, args.root) : null;
    if (cert) console.error(`edgeblocks: warning: ${cert}`);
    const installedFile = app.installedConfigUnread(config, serviceFile, root);
    if (installedFile) console.error(`edgeblocks: warning: ${installedFile}`);
    const file = config.config ? ` (${config.config})` : '';
    console.log(`edgeblocks ${VERSION}: the configuration${file} is valid, with the data dir ${config.dataDir}`);
  } catch (e) {
    const where = app.unitOrigin(e, fromUnit);
    if (where && e instanceof Error) e.message += where;
    throw e;
  }
}

const PLAIN = new URL('./app.js', import.meta.url);
const BUNDLE = new URL('../bundle/app.cjs', import.meta.url);

async function main(): Promise<void> {
  // `edgeblocks user ...` loads only what it needs (the service's modules take seconds on a Pi).
  if (process.argv[2] === 'user')
    process.exit(await (await import('./auth/cli.js')).runUserCommand(process.argv.slice(3)));
  // `edgeblocks doctor ...`: the self-test (src/doctor), beside a running service or without one.
  if (process.argv[2] === 'doctor')
    process.exit(await (await import('./doctor/index.js')).runDoctor(process.argv.slice(3)));
  // Compiled code is kept between starts: the bundle's by code-cache.ts, the few plain modules
  // by Node >= 22.1 (Node 20 has no cache of its own), in one directory.
  const codeCache = cacheDirectory();
  if ('dir' in codeCache)
    (module as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache?.(codeCache.dir);
  // The bundle or the plain modules (src/service/app-module.ts says which and why). The
  // configuration is loaded through it too (app.ts passes it on): its schema's modules (TypeBox's
  // 250 files) would otherwise be read a second time, from node_modules, before the bundle.
  const modules = pickAppModule(PLAIN, BUNDLE);
  const bundle = modules === BUNDLE.href ? loadCommonJs(fileURLToPath(BUNDLE), codeCache) : null;
  // fixableLine comes with them, so that a start loads no other plain module for it.
  const service = (bundle ? bundle.exports : await import(modules)) as typeof import('./app.js');
  const { createApp, fixableLine, helpText, loadConfig, parseArgs } = service;
  let config: Config;
  try {
    const args = parseArgs(process.argv.slice(2));
    if (args.help) {
      console.log(helpText());
      return;
    }
    if (args.version) {
      console.log(VERSION);
      return;
    }
    if (args.check) {
      await check(args, service);
      return;
    }
    config = loadConfig(args.values);
  } catch (e) {
    exitIfFixable(fixableLine(e));
    throw e;
  }

  let app;
  try {
    app = await createApp(config);
  } catch (e) {
    exitIfFixable(fixableLine(e));
    process.stderr.write(`edgeblocks: cannot start: ${(e as Error).message}\n`);
    process.exit(1);
  }
  const { log } = app;
  log.debug(
    { modules, codeCache: bundle?.where },
    `service modules: ${bundle ? `dist/bundle (code cache: ${bundle.cache})` : 'dist/src'}`,
  );
  setNotifyErrorHandler((message) => log.warn(message));
  // Pings systemd only while the control loop keeps ticking, so a stalled loop gets restarted.
  const watchdog = Watchdog.fromEnv({
    lastTickAt: () => (app.runtime.paused ? app.runtime.clock.now() : app.runtime.lastTickAt),
    now: () => app.runtime.clock.now(),
  });
  let stopping = false;
  const shutdown = (signal: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    watchdog.stop();
    void notifyStopping();
    const force = setTimeout(() => {
      log.error('shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS);
    force.unref();
    app.stop().then(
      () => {
        // The code cache is made at a clean stop, when the start did not use one: it then holds
        // what the service ran, and the 8 MB that V8's serialiser takes from malloc (which glibc
        // keeps) go with the process. A crash or a power cut leaves the next start to compile.
        if (bundle && bundle.cache !== 'used' && bundle.cache !== 'off') {
          const saved = bundle.save();
          if (saved.ok) log.info(saved.message);
          else log.warn(saved.message);
        }
        process.exit(code);
      },
      (e) => {
        log.error({ err: e }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // system/reboot/service: a clean stop, then an exit code systemd's Restart=on-failure restarts.
  app.onRestart = () => shutdown('restart requested', RESTART_EXIT_CODE);
  process.on('SIGINT', () => shutdown('SIGINT'));
  // A crash still tries to leave every output safe (briefly: the failsafe command follows under systemd).
  const crash = (what: string, e: unknown) => {
    log.fatal({ err: e }, what);
    const exit = setTimeout(() => process.exit(1), CRASH_SAFE_STATE_MS);
    exit.unref();
    app.hardware.safeState().then(
      () => process.exit(1),
      () => process.exit(1),
    );
  };
  process.on('uncaughtException', (e) => crash('uncaught exception', e));
  process.on('unhandledRejection', (e) => crash('unhandled rejection', e));
  try {
    await app.start();
    await notifyReady(`listening on ${app.url}`);
    if (watchdog.start()) log.info({ periodMs: watchdog.periodMs }, 'systemd watchdog enabled');
  } catch (e) {
    if (fixableLine(e) !== null) {
      await app.stop().catch(() => undefined);
      exitIfFixable(fixableLine(e));
    }
    const err = e as NodeJS.ErrnoException;
    log.fatal({ err }, `cannot start: ${err.message}`);
    process.stderr.write(`edgeblocks: cannot start: ${err.message}\n`);
    await app.stop().catch(() => undefined);
    process.exit(1);
  }
}

void main();
