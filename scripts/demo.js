#!/usr/bin/env node
// `npm run demo`: the service on emulated hardware, with a data dir that already holds a few
// blocks, so a new user sees live values at once. Extra flags are passed through.
import { readFileSync } from 'node:fs';
import { createApp } from '../dist/src/app.js';
import { helpText, loadConfig, parseArgs } from '../dist/src/config.js';
import { fixableLine } from '../dist/src/shared/errors.js';
import { VERSION } from '../dist/src/shared/version.js';

/** An error a user fixes (a bad setting, a busy port or data dir): one line, exit code 2. */
function exitIfFixable(e) {
  let line = fixableLine(e);
  if (line === null) return;
  // In a checkout `edgeblocks` is not on PATH: the demo's users are added through the demo.
  if (e.key === 'auth') line += '; for the demo: npm run demo -- user add NAME';
  // npm keeps the flags before `--` for itself (`npm run demo --port 5080` passes a bare 5080).
  if (e.name === 'PortInUseError') line += '; with npm, flags go after --: npm run demo -- --port 5080';
  if (e.key?.startsWith('"'))
    line = `configuration error: ${e.key}: unexpected argument; with npm, flags go after --: npm run demo -- --port 5080; the demo's commands: help, version, user (see npm run demo -- --help)`;
  console.error(`demo: ${line}`);
  process.exit(2);
}

const defaults = ['--data-dir', './demo-data', '--https-port', '8443', '--hardware', 'sim'];
const argv = process.argv.slice(2);
// `npm run demo -- user add NAME`: the service's user command, on the demo's data dir unless given.
if (argv[0] === 'user') {
  const { runUserCommand } = await import('../dist/src/auth/cli.js');
  process.exit(await runUserCommand(['--data-dir', './demo-data', ...argv.slice(1)]));
}
if (argv[0] === 'doctor' || argv[0] === 'check') {
  console.error(`demo: \`${argv[0]}\` is a command of the service, not of the demo: node dist/src/main.js ${argv[0]}`);
  process.exit(2);
}
let config;
try {
  const args = parseArgs([...defaults, ...argv]);
  if (args.help) {
    console.log(
      [
        'Usage: npm run demo -- [options]',
        '       npm run demo -- user add|passwd|remove|list|token ...   (users for --auth; see npm run demo -- user --help)',
        '',
        `The service on emulated hardware with the demo's blocks; its defaults: ${defaults.join(' ')}.`,
        'Every option of the service below can follow (npm passes what comes after -- to the demo).',
        '',
        helpText(),
      ].join('\n'),
    );
    process.exit(0);
  }
  if (args.version) {
    console.log(VERSION);
    process.exit(0);
  }
  config = loadConfig(args.values);
} catch (e) {
  exitIfFixable(e);
  throw e;
}
let app;
try {
  app = await createApp(config);
} catch (e) {
  exitIfFixable(e);
  throw e;
}
// The demo's blocks go into a fresh data dir once. A settings row says the dir has had its
// start: blocks a user deleted (to set up their own) stay deleted at the next start. A dir that
// has user blocks and no row (the demo of an older release) is marked without seeding.
const SEEDED = 'demo_seeded';
const seededAt = app.db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
if (seededAt.get(SEEDED) === undefined) {
  if (app.runtime.blocks().every((b) => b.def.system)) {
    const seed = JSON.parse(readFileSync(new URL('./demo-blocks.json', import.meta.url), 'utf8'));
    const { messages } = await app.runtime.backupLoad(seed, 'demo');
    for (const m of messages) app.log.warn(m);
    app.log.info(`demo: seeded ${seed.blocks.length} blocks into ${config.dataDir}`);
  }
  try {
    app.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run(SEEDED, new Date().toISOString());
  } catch (e) {
    // A full disk: the demo runs on; the next start asks again.
    app.log.warn(`demo: could not note in ${config.dataDir} that it has its blocks: ${e.message}`);
  }
}
const stop = () =>
  app.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
try {
  await app.start();
} catch (e) {
  if (fixableLine(e) === null) throw e;
  await app.stop().catch(() => undefined);
  exitIfFixable(e);
}
const root = app.url.slice(0, app.url.length - config.serviceId.length);
app.log.info(`demo: dashboard at ${root}  (the emulated fermenter, live)`);
app.log.info(`demo: API docs at ${app.url}/api/doc; try  curl -s -XPOST ${app.url}/blocks/all/read`);
