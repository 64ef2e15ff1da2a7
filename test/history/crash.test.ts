// kill -9 of the built CLI during ingest: everything flushed before the kill is intact after a
// restart, every record of the history directory passes its checksum, and at most the unflushed batch (one
// flush interval) is lost.
// tags: slow (kill -9 of the built CLI)
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { postJson, startCli, type RunningCli } from '../helpers/cli.js';
import { HISTORY_DIR } from '../../src/history/embedded/embedded-store.js';
import { scanSegments } from '../../src/history/embedded/segments.js';

const FLUSH_MS = 700;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('kill -9 during ingest, then restart', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-crash-'));
  const running: RunningCli[] = [];
  t.teardown(() => {
    for (const cli of running) cli.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const args = [
    '--hardware',
    'sim',
    '--mqtt-port',
    '0',
    '--data-dir',
    dir,
    '--emit-interval',
    '100',
    '--log-level',
    'info',
  ];
  const env = { EDGEBLOCKS_HISTORY_FLUSH_INTERVAL: String(FLUSH_MS) };
  const first = await startCli(args, env);
  running.push(first);
  t.equal(
    (
      await postJson(`${first.base}/edge-one/blocks/create`, {
        id: 'Beer Sensor',
        type: 'TempSensorMock',
        data: { setting: 20, connected: true },
      })
    ).status,
    201,
  );
  const field = 'edge-one/Beer Sensor/value[degC]';
  const csv = async (base: string) => {
    const res = await fetch(`${base}/history/timeseries/csv`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fields: [field], precision: 'ms', duration: '1h' }),
    });
    return (await res.text())
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','))
      .map(([ts, v]) => [Number(ts), Number(v)] as [number, number]);
  };
  // Vary the value while points stream in, so values as well as times are checked.
  for (let i = 0; i < 12; i++) {
    await postJson(`${first.base}/edge-one/blocks/write`, {
      id: 'Beer Sensor',
      type: 'TempSensorMock',
      data: { setting: 20 + i / 4, connected: true },
    });
    await sleep(250);
  }
  const status = (await (await fetch(`${first.base}/edge-one/system/status`)).json()) as {
    history: { lastFlush: string; flushes: number };
  };
  const before = await csv(first.base);
  first.child.kill('SIGKILL');
  await first.exited;
  t.ok(status.history.flushes >= 2, `flushed ${status.history.flushes} times before the kill`);
  const lastFlush = Date.parse(status.history.lastFlush);
  t.ok(before.length > 20, `${before.length} points before the kill`);

  const problems: string[] = [];
  const segments = scanSegments(
    path.join(dir, HISTORY_DIR),
    {
      onSkipped: (file, x) => problems.push(`${file}: ${x.why} at ${x.offset}`),
      onTorn: (file, x) => problems.push(`${file}: torn, ${x.why} at ${x.offset}`),
    },
    false,
  );
  t.same(problems, [], 'every record in the history directory is whole');
  t.ok(segments.reduce((n, s) => n + s.records.length, 0) >= 2, 'and the flushes are there');

  const second = await startCli(args, env);
  running.push(second);
  const after = await csv(second.base);
  const kept = new Map(after.map(([ts, v]) => [ts, v]));
  const flushed = before.filter(([ts]) => ts <= lastFlush);
  t.ok(flushed.length > 10, `${flushed.length} points were flushed before the status was read`);
  t.same(
    flushed.filter(([ts, v]) => kept.get(ts) !== v),
    [],
    'every flushed point is back with its value',
  );
  const lost = before.filter(([ts]) => !kept.has(ts));
  t.ok(
    lost.every(([ts]) => ts > lastFlush),
    'only unflushed points are lost',
  );
  t.ok(
    lost.length <= Math.ceil((FLUSH_MS + 600) / 100) + 2,
    `${lost.length} points lost, at most about one flush interval's worth`,
  );
  second.child.kill('SIGTERM');
  await second.exited;
});
