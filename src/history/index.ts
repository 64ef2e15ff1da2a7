// The history service of DESIGN §9.3: the store chosen by --history, the ingest subscribed to
// `<root>/history/#` on the app's broker, and the timeseries routes for the /history context.
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { timeseriesRoutes } from './api.js';
import { EmbeddedStore } from './embedded/embedded-store.js';
import { HistoryIngest } from './ingest.js';
import type { HistoryStore } from './store.js';
import { topicsFor } from '../mqtt/topics.js';
import { parseDuration } from './timeframe.js';
import { VictoriaStore } from './victoria-store.js';

export interface History {
  store: HistoryStore;
  ingest: HistoryIngest;
  routes: FastifyPluginAsync;
  /** Subscribe on the bus; returns the function that unsubscribes. */
  attach(bus: { subscribeRaw(filter: string, handler: (topic: string, payload: Buffer) => void): () => void }, topicRoot: string): () => void;
  start(): void;
  stop(): Promise<void>;
  status(): Record<string, unknown>;
}

export interface HistoryDeps {
  config: Config;
  log: Logger;
  /** Wall clock, epoch ms. */
  now: () => number;
}

export function createHistory({ config, log, now }: HistoryDeps): History | null {
  if (config.history === 'off') return null;
  const store =
    config.history === 'victoria'
      ? new VictoriaStore({ url: config.historyUrl!, log })
      : new EmbeddedStore({
          dataDir: config.dataDir,
          now,
          flushIntervalMs: config.historyFlushInterval,
          retentionMs: parseDuration(config.historyRetention) * 1000,
          maxBytes: config.historyMaxBytes,
          log,
        });
  const ownTopic = topicsFor(config.topicRoot, config.serviceId).history;
  const ingest = new HistoryIngest({ store, now, log, ownTopic });
  return {
    store,
    ingest,
    routes: timeseriesRoutes({ store, ingest, now, log }),
    // 'own': with several controllers on one shared store, each writes its own points once.
    attach: (bus, topicRoot) => bus.subscribeRaw(config.historyIngest === 'own' ? ownTopic : `${topicRoot}/history/#`, (topic, payload) => ingest.handle(topic, payload)),
    start: () => store.start(),
    stop: () => {
      ingest.stop();
      return store.close();
    },
    status: () => ({ ...store.status(), ingest: ingest.status() }),
  };
}
