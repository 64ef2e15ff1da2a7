// A history ingest over an embedded store in a temporary dir, on a manual clock (wall and
// monotonic the same), as the ingest tests drive it: `advance` moves the clock, `settled` waits
// until the queued messages are handled. The store and the ingest count drops together, as in the app.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { EmbeddedStore } from '../../src/history/embedded/embedded-store.js';
import { HistoryIngest, type IngestOptions } from '../../src/history/ingest.js';
import { HistoryDrops } from '../../src/history/drops.js';
import { silentLogger } from '../../src/log.js';

export function ingestRig(t: Test, opts: Partial<IngestOptions> = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-ingest-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  let clock = Date.UTC(2026, 0, 1);
  const now = () => clock;
  const drops = opts.drops ?? new HistoryDrops(silentLogger, { intervalMs: 60_000, now });
  const store = new EmbeddedStore({
    dataDir: dir,
    now,
    flushIntervalMs: 60_000,
    retentionMs: 86_400_000,
    maxBytes: 1e9,
    log: silentLogger,
    drops,
  });
  t.teardown(() => store.close());
  const ingest = new HistoryIngest({
    store,
    now,
    monotonic: now,
    log: silentLogger,
    ownTopic: 'svc/history/edge-one',
    ...opts,
    drops,
  });
  const settled = async () => {
    for (let i = 0; i < 400 && (ingest.status().queuedMessages as number | undefined); i++)
      await new Promise((r) => setTimeout(r, 5));
  };
  return { store, ingest, now, settled, advance: (ms: number) => void (clock += ms) };
}
