// The sd_notify client and the watchdog helper against a real notify socket.
import t, { type Test } from 'tap';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  notifyReady,
  notifyStatus,
  notifyStopping,
  notifyWatchdog,
  sdNotify,
  setNotifyErrorHandler,
  Watchdog,
  watchdogIntervalMs,
} from '../../src/service/notify.js';
import { NotifyHarness } from './notify-harness.js';
import { ROOT } from '../helpers/root.js';

const repo = ROOT;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function harness(t: Test, name = 'notify.sock'): Promise<NotifyHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'eb-notify-'));
  const h = await NotifyHarness.start(name.startsWith('@') ? name : join(dir, name), t);
  const saved = process.env.NOTIFY_SOCKET;
  process.env.NOTIFY_SOCKET = h.address;
  t.teardown(() => {
    h.stop();
    if (saved === undefined) delete process.env.NOTIFY_SOCKET;
    else process.env.NOTIFY_SOCKET = saved;
    rmSync(dir, { recursive: true, force: true });
  });
  return h;
}

t.test('without NOTIFY_SOCKET everything is a no-op', async (t) => {
  const env = { PATH: process.env.PATH };
  t.equal(await notifyReady(undefined, { env }), false);
  t.equal(await notifyWatchdog({ env }), false);
  t.equal(await notifyStopping({ env }), false);
  t.equal(watchdogIntervalMs({ WATCHDOG_USEC: '30000000' }), 0);
  const dog = Watchdog.fromEnv({ lastTickAt: () => Date.now() }, env);
  t.equal(dog.enabled, false);
  t.equal(dog.start(), false);
});

t.test('watchdogIntervalMs reads WATCHDOG_USEC and WATCHDOG_PID', async (t) => {
  const base = { NOTIFY_SOCKET: '/run/systemd/notify', WATCHDOG_USEC: '30000000' };
  t.equal(watchdogIntervalMs(base, 42), 30000);
  t.equal(watchdogIntervalMs({ ...base, WATCHDOG_PID: '42' }, 42), 30000);
  t.equal(watchdogIntervalMs({ ...base, WATCHDOG_PID: '43' }, 42), 0, 'meant for another process');
  t.equal(watchdogIntervalMs({ ...base, WATCHDOG_USEC: 'soon' }, 42), 0);
  t.equal(watchdogIntervalMs({ NOTIFY_SOCKET: '/x' }, 42), 0);
});

t.test('READY, STATUS, WATCHDOG and STOPPING arrive on a real notify socket', async (t) => {
  const h = await harness(t);
  t.equal(await notifyReady('http listening on 5000'), true);
  t.equal(await notifyWatchdog(), true);
  t.equal(await notifyStatus('2 sensors\nok'), true);
  t.equal(await notifyStopping(), true);
  await h.waitFor(() => h.payloads().length >= 4);
  t.same(h.payloads(), ['READY=1\nSTATUS=http listening on 5000', 'WATCHDOG=1', 'STATUS=2 sensors ok', 'STOPPING=1']);
});

t.test('an unprivileged sender is the systemd-notify child, so the unit needs NotifyAccess=all', async (t) => {
  const h = await harness(t);
  // As root systemd-notify may claim its parent's PID; the service runs as a plain user, so
  // run it as one (nobody) when this test runs as root.
  let command = 'systemd-notify';
  if (process.getuid?.() === 0) {
    const dir = mkdtempSync(join(tmpdir(), 'eb-notify-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    chmodSync(dirname(h.address), 0o755);
    command = join(dir, 'notify-as-nobody');
    writeFileSync(command, '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups systemd-notify "$@"\n');
    chmodSync(command, 0o755);
    chmodSync(dir, 0o755);
  }
  t.equal(await notifyReady(undefined, { command }), true);
  await h.waitFor(() => h.count('READY=1') === 1);
  const sender = h.messages.find((m) => m.message === 'READY=1')!.pid;
  t.ok(sender !== null && sender !== process.pid, `sender ${sender} is not the main process ${process.pid}`);
  const unit = readFileSync(join(repo, 'systemd/edgeblocks.service'), 'utf8');
  t.match(unit, /^NotifyAccess=all$/m, 'NotifyAccess=main would drop it');
});

t.test('abstract notify addresses work too', async (t) => {
  const h = await harness(t, `@eb-test-${process.pid}-${Date.now()}`);
  t.equal(await sdNotify({ READY: 1 }), true);
  await h.waitFor(() => h.count('READY=1') === 1);
});

t.test('failures are reported, never thrown', async (t) => {
  await harness(t);
  const errors: string[] = [];
  setNotifyErrorHandler((m) => errors.push(m));
  t.teardown(() => setNotifyErrorHandler(() => {}));
  t.equal(await notifyReady(undefined, { command: '/nonexistent/systemd-notify' }), false);
  t.match(errors[0], /cannot run \/nonexistent\/systemd-notify/);
  t.equal(await notifyWatchdog({ env: { ...process.env, NOTIFY_SOCKET: '/nonexistent/socket' } }), false);
  t.match(errors[1], /WATCHDOG=1: systemd-notify exited with 1/);
});

t.test('the watchdog pings while the loop ticks and stops when it stalls', async (t) => {
  const h = await harness(t);
  let lastTick = Date.now();
  let ticker: NodeJS.Timeout | null = setInterval(() => (lastTick = Date.now()), 50);
  const dog = new Watchdog({ intervalMs: 600, lastTickAt: () => lastTick });
  t.teardown(() => {
    dog.stop();
    if (ticker) clearInterval(ticker);
  });
  t.equal(dog.periodMs, 300);
  t.equal(dog.start(), true);
  await h.waitFor(() => h.count('WATCHDOG=1') >= 3);

  clearInterval(ticker);
  ticker = null;
  // Once a check has seen the stale tick and no ping is still on its way, the count is final.
  await h.waitFor(() => dog.stalls >= 1 && !dog.pinging);
  await h.waitFor(() => h.count('WATCHDOG=1') === dog.pings);
  const atStall = h.count('WATCHDOG=1');
  await sleep(1200);
  t.equal(h.count('WATCHDOG=1'), atStall, 'no pings while the loop is stalled');
  t.ok(dog.stalls >= 2, `stalls counted (${dog.stalls})`);

  ticker = setInterval(() => (lastTick = Date.now()), 50);
  await h.waitFor(() => h.count('WATCHDOG=1') >= atStall + 2);
  t.pass('pings resume when the loop ticks again');
});

t.test('watchdog decisions with a manual clock', async (t) => {
  let now = 1_000_000;
  let tick = now;
  let healthy = true;
  const pings: number[] = [];
  const dog = new Watchdog({
    intervalMs: 30_000,
    lastTickAt: () => tick,
    isAlive: () => healthy,
    ping: () => pings.push(now),
    now: () => now,
  });
  t.equal(dog.periodMs, 15_000);
  t.equal(await dog.check(), true);
  now += 15_000;
  t.equal(await dog.check(), true, 'tick exactly at the age limit still counts');
  now += 1;
  t.equal(await dog.check(), false, 'tick older than half the interval: no ping');
  tick = now;
  healthy = false;
  t.equal(await dog.check(), false, 'isAlive() false: no ping');
  healthy = true;
  t.equal(await dog.check(), true);
  t.equal(dog.pings, 3);
  t.equal(dog.stalls, 2);
  t.same(pings.length, 3);
  t.throws(() => new Watchdog({ intervalMs: 1000 }), /needs lastTickAt or isAlive/);
  const custom = new Watchdog({
    intervalMs: 10_000,
    maxTickAgeMs: 60_000,
    lastTickAt: () => tick,
    ping: () => {},
    now: () => now,
  });
  now += 59_000;
  t.equal(await custom.check(), true, 'maxTickAgeMs overrides the default');
});
