// The history service of DESIGN §9.3: the store chosen by --history, the ingest subscribed to
// `<root>/history/#` on the app's broker, and the timeseries routes for the /history context.
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { timeseriesRoutes } from './api.js';
import { ClockGate, type GateClock } from './clock-gate.js';
import { HistoryDrops, type OwnDrop } from './drops.js';
import { EmbeddedStore } from './embedded/embedded-store.js';
import { HistoryIngest } from './ingest.js';
import type { HistoryStore } from './store.js';
import { topicsFor } from '../mqtt/topics.js';
import { INGEST_LIMITS } from './limits.js';
import { parseDuration } from './timeframe.js';
import { WarningLimiter } from '../log/limit.js';
import { STREAM_QUEUE_BYTES } from '../shared/limits.js';
import { SlowClients } from '../shared/slow-clients.js';
import { VictoriaStore } from './victoria-store.js';

export interface History {
  store: HistoryStore;
  ingest: HistoryIngest;
  routes: FastifyPluginAsync;
  /** Subscribe on the bus; returns the function that unsubscribes. */
  attach(bus: HistoryBus, topicRoot: string): () => void;
  start(): void;
  stop(): Promise<void>;
  /** ok false while the store fails or the controller's own points were dropped lately (the reason in error). */
  status(): Record<string, unknown>;
  /** The controller's own last drop within drops.ts' window, or null (the alert condition). */
  ownDrop(): OwnDrop | null;
}

export interface HistoryBus {
  subscribeRaw(filter: string, handler: (topic: string, payload: Buffer) => void): () => void;
  /** The controller's own history messages as they are published (src/mqtt/index.ts). */
  onOwnHistory(fn: (message: unknown, bytes: number) => void): () => void;
}

export interface HistoryDeps {
  config: Config;
  log: Logger;
  /** Wall clock, epoch ms. */
  now: () => number;
  /** Monotonic ms and the newest wall time from before this start (clock-gate.ts); without it, no high-water mark. */
  clock?: Omit<GateClock, 'wall'>;
}

export function createHistory({ config, log, now, clock }: HistoryDeps): History | null {
  if (config.history === 'off') return null;
  const mono = clock ? () => clock.now() : () => performance.now();
  const drops = new HistoryDrops(log, { intervalMs: INGEST_LIMITS.dropLogIntervalMs, now, monotonic: mono });
  const store =
    config.history === 'victoria'
      ? new VictoriaStore({ url: config.historyUrl!, log, drops })
      : new EmbeddedStore({
          dataDir: config.dataDir,
          now,
          monotonic: mono,
          flushIntervalMs: config.historyFlushInterval,
          retentionMs: parseDuration(config.historyRetention) * 1000,
          maxBytes: config.historyMaxBytes,
          log,
          drops,
        });
  const ownTopic = topicsFor(config.topicRoot, config.serviceId).history;
  const gate = new ClockGate(store, { wall: now, now: mono, highWater: () => clock?.highWater() ?? null }, drops);
  const ingest = new HistoryIngest({
    store: gate,
    now,
    monotonic: mono,
    log,
    ownTopic,
    ownKey: config.serviceId,
    drops,
  });
  const warnings = new WarningLimiter(log);
  const slow = new SlowClients(STREAM_QUEUE_BYTES, (reason) =>
    warnings.warn('slow', { reason }, `history stream ${reason}`),
  );
  return {
    store,
    ingest,
    routes: timeseriesRoutes({ store, ingest, now, log, slow }),
    // The controller's own messages come straight from the emission, so the service does not
    // parse its own publication back; on the bus they are for everyone else. With
    // historyIngest 'own' (several controllers on one shared store) nothing else is stored.
    attach: (bus, topicRoot) => {
      const offOwn = bus.onOwnHistory((message, bytes) => ingest.own(message, bytes));
      if (config.historyIngest === 'own') return offOwn;
      const offBus = bus.subscribeRaw(
        `${topicRoot}/history/#`,
        (topic, payload) => topic !== ownTopic && ingest.handle(topic, payload),
      );
      return () => {
        offOwn();
        offBus();
      };
    },
    start: () => store.start(),
    stop: () => {
      ingest.stop();
      return store.close();
    },
    status: () => {
      const own = drops.ownDrop();
      const status: Record<string, unknown> = {
        ...store.status(),
        ingest: ingest.status(),
        dropped: drops.status(),
        clock: gate.status(),
        stream: { slowClosed: slow.closed },
      };
      if (own && status.ok !== false) {
        status.ok = false;
        status.error = `the controller's own history points are being dropped (${own.reason}): ${own.detail}`;
      }
      return status;
    },
    ownDrop: () => drops.ownDrop(),
  };
}
