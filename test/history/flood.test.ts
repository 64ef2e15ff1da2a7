// A history flood against the built CLI (embedded broker): one anonymous client publishes 800
// messages a second (100 numeric fields each, 1000 reused keys) for a few seconds, first on one
// topic, then spread over 150 topics (which the per-publisher limits do not stop, so the queue,
// field and pending-point bounds must). RSS stays within +150 MB of idle, the state emission
// stays on time during the flood, system/ping answers fast right after it, the drops are
// counted in system/status and logged once.
// tags: slow alone (the built CLI under a flood, held to real-time limits)
import t from 'tap';
import mqtt from 'mqtt';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startCli } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const FLOOD_MS = 6000;
const RATE = 800;
const EMIT_MS = 250;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('a history flood is bounded and control stays on time', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-flood-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cli = await startCli(
    [
      '--hardware',
      'sim',
      '--mqtt-port',
      '0',
      '--data-dir',
      dir,
      '--emit-interval',
      String(EMIT_MS),
      '--log-level',
      'info',
    ],
    {},
    t,
  );
  t.teardown(() => void cli.child.kill('SIGKILL'));
  await cli.waitFor(/mqtt connected/, 'the service connecting to its broker');
  const brokerPort = Number(/mqtt broker listening on \S*:(\d+)/.exec(cli.output())?.[1]);
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${cli.child.pid}/status`, 'utf8'))![1]) / 1024;
  const ping = async () => {
    const t0 = performance.now();
    const res = await fetch(`${cli.base}/edge-one/system/ping`);
    return res.status === 200 ? performance.now() - t0 : Infinity;
  };
  const status = async () =>
    (await (await fetch(`${cli.base}/edge-one/system/status`)).json()) as { history: Record<string, any> };

  const watcher = await mqtt.connectAsync(`mqtt://127.0.0.1:${brokerPort}`);
  t.teardown(() => watcher.endAsync());
  const states: number[] = [];
  watcher.on('message', () => states.push(Date.now()));
  await watcher.subscribeAsync('svc/state/edge-one');
  await sleep(1500);
  const idle = rss();

  const flooder = await mqtt.connectAsync(`mqtt://127.0.0.1:${brokerPort}`, { clientId: 'flooder' });
  t.teardown(() => flooder.endAsync());
  const body = (i: number) =>
    JSON.stringify({
      key: `k${i % 1000}`,
      data: Object.fromEntries(Array.from({ length: 100 }, (_, f) => [`f${f}`, (i * f) % 97])),
    });
  let peak = idle;
  for (const topics of [1, 150]) {
    await t.test(`${RATE} messages/s on ${topics} topic(s)`, async (t) => {
      const start = Date.now();
      const statesBefore = states.length;
      let sent = 0;
      while (Date.now() - start < FLOOD_MS) {
        const due = Math.floor(((Date.now() - start) / 1000) * RATE);
        for (; sent < due; sent++) flooder.publish(`svc/history/flood${sent % topics}`, body(sent));
        peak = Math.max(peak, rss());
        await sleep(10);
      }
      const during = states.slice(statesBefore).filter((at) => at <= Date.now());
      const gaps = during.slice(1).map((at, i) => at - during[i]!);
      t.ok(
        during.length >= (FLOOD_MS / EMIT_MS) * 0.7,
        `${during.length} state messages during the ${FLOOD_MS} ms flood (one per ${EMIT_MS} ms)`,
      );
      t.ok(
        Math.max(...gaps) <= limit(EMIT_MS + 500),
        `the longest gap between state messages was ${Math.max(...gaps)} ms`,
      );
      await sleep(limit(1000));
      const pings: number[] = [];
      for (let i = 0; i < 9; i++) pings.push(await ping());
      pings.sort((a, b) => a - b);
      t.ok(pings[4]! <= limit(50), `system/ping p50 ${pings[4]!.toFixed(1)} ms one second after the flood`);
      t.ok(peak - idle <= 150, `RSS peaked ${Math.round(peak)} MB, idle was ${Math.round(idle)} MB`);
    });
  }

  const { history } = await status();
  const { dropped } = history as { dropped: Record<string, Record<string, number>> };
  t.ok(dropped.messages.rate! > 0, `rate drops counted (${dropped.messages.rate})`);
  t.same(dropped.own, {}, "none of the controller's own points was dropped");
  t.equal(history.ok, true, 'so history is ok');
  t.ok(history.pendingPoints <= history.maxPendingPoints * 1.1, `${history.pendingPoints} points pending`);
  const lines = cli
    .output()
    .split('\n')
    .filter((l) => l.includes('history dropping')).length;
  t.equal(
    lines,
    1,
    `${lines} log lines about the drops: one a minute at most (the ingest and the store count together)`,
  );
  t.ok(history.ingest.keys <= 1001, `${history.ingest.keys} keys held`);
});
