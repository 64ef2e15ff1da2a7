#!/usr/bin/env node
// `npm run demo`: the service on emulated hardware, with a data dir that already holds a few
// blocks, so a new user sees live values at once. Extra flags are passed through.
import { readFileSync } from 'node:fs';
import { createApp } from '../dist/src/app.js';
import { loadConfig, parseArgs } from '../dist/src/config.js';
import { fixableLine } from '../dist/src/shared/errors.js';

/** An error a user fixes (a bad setting, a busy port or data dir): one line, exit code 2. */
function exitIfFixable(e) {
  const line = fixableLine(e);
  if (line === null) return;
  console.error(`demo: ${line}`);
  process.exit(2);
}

const defaults = ['--data-dir', './demo-data', '--https-port', '8443', '--hardware', 'sim'];
let config;
try {
  config = loadConfig(parseArgs([...defaults, ...process.argv.slice(2)]).values);
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
if (app.runtime.blocks().every((b) => b.def.system)) {
  const seed = JSON.parse(readFileSync(new URL('./demo-blocks.json', import.meta.url), 'utf8'));
  const { messages } = await app.runtime.backupLoad(seed, 'demo');
  for (const m of messages) app.log.warn(m);
  app.log.info(`demo: seeded ${seed.blocks.length} blocks into ${config.dataDir}`);
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
