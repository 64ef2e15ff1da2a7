// A real embedded store filled as the service fills it (write, and a flush every minute of
// points), for tests of large queries: `fields` fields of key 'big' every `stepMs` over `days`
// days ending 2026-01-02, every point raw.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { EmbeddedStore } from '../../src/history/embedded/embedded-store.js';
import { silentLogger } from '../../src/log.js';

const DAY = 86_400_000;

export function filledStore(
  t: Pick<Test, 'teardown'>,
  o: { fields: number; stepMs: number; days: number; value: (i: number, f: number) => number },
) {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-filled-store-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const end = Date.UTC(2026, 0, 2);
  const start = end - o.days * DAY;
  const clock = { now: start };
  const store = new EmbeddedStore({
    dataDir: dir,
    now: () => clock.now,
    flushIntervalMs: 60_000,
    retentionMs: 365 * DAY,
    maxBytes: 1e10,
    log: silentLogger,
  });
  t.teardown(() => store.close());
  const names = Array.from({ length: o.fields }, (_, f) => `f${f}`);
  let i = 0;
  for (let ts = start + o.stepMs; ts <= end; ts += o.stepMs, i++) {
    clock.now = ts;
    store.write(
      'big',
      names.map((n, f) => [n, o.value(i, f)] as const),
      ts,
    );
    if (i % 12 === 11) store.flushSync();
  }
  store.flushSync();
  return { store, start, end, fields: names.map((n) => `big/${n}`), timestamps: i };
}
