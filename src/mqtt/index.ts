// The MQTT subsystem of the app: embedded broker (or an external one), the runtime's client,
// /eventbus websockets (a route of the HTTP app: `routes`), state/history/patch emission and the
// controller topics. `createMqtt` only wires; nothing listens or connects before `start()`.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { ConfigError } from '../shared/errors.js';
import { parseJson } from '../shared/json.js';
import { BODY_LIMIT, MAX_READ_PACKET_BYTES } from '../shared/limits.js';
import { unreadableFile } from '../shared/unreadable.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { offlineSparkStatus, sparkStatus, type SparkStatusInput } from '../service/spark-status.js';
import type { BlockRuntime } from '../runtime/runtime.js';
import type { EmbeddedBroker } from './broker.js';
import type { BusAuth } from './bus-auth.js';
import type { MessageHandler, MqttConnection, SubscribeOptions } from './connection.js';
import { memoryPair } from './memory-pair.js';
import { subscribeControllerTopics } from './controller-topics.js';
import { Emission } from './emission.js';
import { EventbusWebsocket, EVENTBUS_PATH } from './eventbus-ws.js';
import { publishPatches } from './patches.js';
import { AVAILABILITY, Presence, type PresencePayloads } from './presence.js';
import { offlineMessage, type ControllerStatus } from './state.js';
import { topicsFor } from './topics.js';
import { ttlFor } from './ttl.js';
import { bridgeTarget } from './upstream.js';
import { WarningLimiter } from '../log/limit.js';

export { EVENTBUS_PATH } from './eventbus-ws.js';
export type { Topics } from './topics.js';
export type { AppMqtt, MqttStatus } from './app-mqtt.js';
import type { AppMqtt, MqttStatus } from './app-mqtt.js';

export interface MqttDeps {
  config: Config;
  log: Logger;
  runtime: BlockRuntime;
  /** A short hardware summary for the state message (the full report stays in system/status). */
  hardwareSummary?: () => unknown;
  version: string;
  /** What the Spark status description in the state message is made of (the same as GET system/status). */
  sparkStatus: SparkStatusInput;
  /** Monotonic ms (the runtime's clock) of the start: uptime counts from it, whatever the wall clock does. */
  startedAt?: number;
  /** With auth on: the broker, /eventbus and the service's own client use it. */
  busAuth?: BusAuth;
  /** Where this controller's dashboard is, for the other controllers on the broker (src/fleet). */
  dashboardUrl?: () => string | null;
}

export function createMqtt(deps: MqttDeps): AppMqtt {
  const { config, log, runtime, version } = deps;
  const startedAt = deps.startedAt ?? runtime.clock.now();
  const embedded = config.mqttUrl === 'embedded';
  const topics = topicsFor(config.topicRoot, config.serviceId);
  const key = config.serviceId;
  const ttl = ttlFor(config.emitInterval);
  // Built when used: the will when the connection is made, the clean-stop message at stop.
  const offline = () =>
    JSON.stringify(
      offlineMessage(key, ttl, {
        ...offlineSparkStatus(deps.sparkStatus),
        online: false,
        serviceId: config.serviceId,
        version,
      }),
    );

  let broker: EmbeddedBroker | null = null;
  let conn: MqttConnection | null = null;
  const eventbus = new EventbusWebsocket(log, (user) => deps.busAuth?.roleOf(user) ?? null);
  let emission: Emission | null = null;
  const cleanups: Array<() => void> = [];
  const warnings = new WarningLimiter(log);
  const counts = { blockApiDropped: 0, otherDropped: 0, oversized: 0 };
  // Subscriptions made before start() are replayed onto the connection when it exists.
  const connectHandlers = new Set<() => void>();
  const ownHistoryHandlers = new Set<(message: unknown, bytes: number) => void>();
  // Presence topics (presence.ts) by topic; the link is null until the service's connection exists.
  type PresenceEntry = { payloads: PresencePayloads; link: Presence | null };
  const presences = new Map<string, PresenceEntry>();
  const stoppingPresences: Array<Promise<void>> = [];
  let openPresence: ((topic: string, payloads: PresencePayloads) => Presence) | null = null;
  const startPresence = (topic: string) => {
    const entry = presences.get(topic);
    if (!entry || entry.link || !openPresence) return;
    entry.link = openPresence(topic, entry.payloads);
    entry.link.start();
  };
  const pending: Array<{
    filter: string;
    handler: MessageHandler;
    opts: SubscribeOptions;
    unsubscribe?: () => void;
  }> = [];

  const controllerStatus = (): ControllerStatus => {
    let hardware: unknown;
    try {
      hardware = deps.hardwareSummary?.();
    } catch (e) {
      hardware = { error: (e as Error).message };
    }
    return {
      ...sparkStatus(deps.sparkStatus),
      online: true,
      serviceId: config.serviceId,
      version,
      uptime: Math.round((runtime.clock.now() - startedAt) / 1000),
      mqtt: { connected: conn?.connected ?? false, url: conn?.displayUrl ?? config.mqttUrl },
      ...(hardware === undefined ? {} : { hardware }),
      dashboardUrl: deps.dashboardUrl?.() ?? null,
    };
  };

  const mqttStatus = (): MqttStatus => ({
    ...(conn?.status() ?? {
      connected: false,
      url: config.mqttUrl,
      clientId: '',
      connectedSince: null,
      connects: 0,
      lastError: null,
      protocolVersion: embedded ? 4 : 5,
      subscribed: false,
    }),
    broker: embedded ? 'embedded' : 'external',
    brokerPort: broker?.port ?? null,
    topicRoot: config.topicRoot,
    emitIntervalMs: config.emitInterval,
    ttl,
    emitted: emission?.stats() ?? {
      cycles: 0,
      history: 0,
      state: 0,
      skipped: 0,
      lateMs: { p50: 0, p99: 0, max: 0, samples: 0 },
    },
    eventbusClients: eventbus.clients,
    slowClientsClosed: broker?.slowClosed ?? eventbus.slowClosed,
    refused: broker?.refused ?? { publish: eventbus.refusedPublishes, subscribe: 0, connect: 0 },
    retained: broker?.retained ?? null,
    dropped: {
      blockApi: counts.blockApiDropped,
      other: counts.otherDropped,
      oversized: counts.oversized,
      warningsSuppressed: warnings.suppressed,
    },
  });

  // A file the settings name that cannot be read is the settings' fault: one line, exit 2.
  const readFile = (key: string, file: string | undefined, kind: string) => {
    if (!file) return undefined;
    try {
      return readFileSync(file);
    } catch (e) {
      throw new ConfigError(key, unreadableFile(file, file, e, kind));
    }
  };

  const subscribeRaw: AppMqtt['subscribeRaw'] = (filter, handler, opts = {}) => {
    const entry: (typeof pending)[number] = {
      filter,
      handler,
      opts,
      unsubscribe: conn?.subscribe(filter, handler, opts),
    };
    pending.push(entry);
    return () => {
      const at = pending.indexOf(entry);
      if (at < 0) return; // removed already: -1 would splice off another subscriber's entry
      pending.splice(at, 1);
      entry.unsubscribe?.();
    };
  };

  return {
    topics,
    get connected() {
      return conn?.connected ?? false;
    },
    get triedToConnect() {
      return conn?.tried ?? false;
    },
    get brokerPort() {
      return broker?.port ?? null;
    },
    routes: eventbus.routes,
    status: mqttStatus,

    publish(topic, payload, opts = {}) {
      const body = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload);
      return conn?.publish(topic, body, opts) ?? false;
    },

    publishConfirmed(topic, payload, opts = {}) {
      const body = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload);
      return conn?.publishConfirmed(topic, body, opts) ?? Promise.resolve(false);
    },

    subscribe(filter, handler, { maxBytes = BODY_LIMIT, maxDepth, ...opts } = {}) {
      const raw = (topic: string, payload: Buffer) => {
        if (payload.length === 0) return handler(topic, null);
        const parsed = parseJson(payload, { maxBytes, what: 'the payload', maxDepth });
        if (!parsed.ok) {
          counts.otherDropped++;
          // Per subscription, not per topic: a client inventing topics under a wildcard gets one line.
          warnings.warn(
            filter,
            { topic, bytes: payload.length, limit: maxBytes, reason: parsed.reason },
            `mqtt message on ${topic} dropped: ${parsed.problem === 'not JSON' ? 'not JSON' : parsed.reason}`,
          );
          return;
        }
        handler(topic, parsed.value);
      };
      return subscribeRaw(filter, raw, opts);
    },

    onConnect(fn) {
      connectHandlers.add(fn);
      return () => connectHandlers.delete(fn);
    },
    subscribeRaw,

    onOwnHistory(fn) {
      ownHistoryHandlers.add(fn);
      return () => ownHistoryHandlers.delete(fn);
    },

    async start() {
      if (conn) return;
      let url = config.mqttUrl;
      if (embedded) {
        // Loaded only when embedded: aedes costs start time and memory an external broker does not need.
        const [{ EmbeddedBroker }, { BrokerAcl }] = await Promise.all([import('./broker.js'), import('./acl.js')]);
        const acl = new BrokerAcl({
          topicRoot: config.topicRoot,
          serviceId: config.serviceId,
          roleOf: (user) => deps.busAuth?.roleOf(user) ?? null,
        });
        broker = await EmbeddedBroker.start(config.host, config.mqttPort, log, deps.busAuth, acl);
        url = `mqtt://${loopbackFor(config.host)}:${broker.port}`;
      }
      const tls = {
        ca: readFile('mqttCa', config.mqttCa, 'CA certificate file'),
        cert: readFile('mqttCert', config.mqttCert, 'client certificate file'),
        key: readFile('mqttKey', config.mqttKey, 'client key file'),
        rejectUnauthorized: config.mqttRejectUnauthorized,
      };
      const target = broker ? { broker } : bridgeTarget(config, tls, log);
      eventbus.serveTo(target);
      if (!('refused' in target)) log.info(`mqtt over websocket at ${EVENTBUS_PATH} on the http port`);

      // Loaded here, not at start-up: mqtt.js and its streams are the heaviest import after fastify.
      const { MqttConnection } = await import('./connection.js');
      const options = {
        url,
        username: embedded ? (deps.busAuth?.enabled ? deps.busAuth.internal.username : undefined) : config.mqttUsername,
        password: embedded ? (deps.busAuth?.enabled ? deps.busAuth.internal.password : undefined) : config.mqttPassword,
        stream: broker ? () => inProcessLink(broker!) : undefined,
        ...(embedded ? {} : tls),
        log,
        onOversized: (topic: string, bytes: number) => {
          counts.oversized++;
          warnings.warn(
            `oversized ${topic}`,
            { topic, bytes, limit: MAX_READ_PACKET_BYTES },
            `mqtt message on ${topic} skipped unread: ${bytes} bytes, over the ${MAX_READ_PACKET_BYTES}-byte read limit`,
          );
        },
      };
      const clientId = () => `eb-${config.serviceId.slice(0, 11)}-${randomBytes(4).toString('hex')}`;
      const mainId = clientId();
      conn = new MqttConnection({
        ...options,
        clientId: mainId,
        will: { topic: topics.state, payload: offline(), retain: true },
      });
      // Its own state and history reach its own subscribers in process (emission.onHistory); not back over the broker.
      if (broker) cleanups.push(broker.noEcho(mainId, [topics.state, topics.history]));
      const main = conn;
      openPresence = (topic, payloads) =>
        new Presence({
          topic,
          payloads,
          main,
          connect: (will) => new MqttConnection({ ...options, clientId: clientId(), will }),
        });
      for (const entry of pending) entry.unsubscribe = conn.subscribe(entry.filter, entry.handler, entry.opts);
      conn.on('connect', () => connectHandlers.forEach((fn) => fn()));
      cleanups.push(subscribeControllerTopics({ conn, runtime, topics, log, warnings, counts }));
      cleanups.push(publishPatches({ conn, runtime, topics, key, ttl }));
      emission = new Emission({
        conn,
        runtime,
        topics,
        key,
        ttl,
        intervalMs: config.emitInterval,
        status: controllerStatus,
        log,
      });
      emission.onHistory = (message, bytes) => ownHistoryHandlers.forEach((fn) => fn(message, bytes));
      emission.start();
      cleanups.push(() => emission?.stop());
      conn.start();
      for (const [topic] of presences) startPresence(topic);
    },

    presence(topic, payloads = AVAILABILITY) {
      const entry: PresenceEntry = { payloads, link: null };
      const end = (e: PresenceEntry) => {
        if (e.link) stoppingPresences.push(e.link.stop());
        e.link = null;
      };
      // A presence that takes a topic ends the one before it: left running, that one would go on
      // answering "offline" with "online" after the new one was removed.
      const replaced = presences.get(topic);
      if (replaced) end(replaced);
      presences.set(topic, entry);
      if (conn) startPresence(topic);
      return () => {
        // Called again, after another presence took the topic: that one is not this one's to end.
        if (presences.get(topic) === entry) presences.delete(topic);
        end(entry);
      };
    },

    async stop() {
      for (const cleanup of cleanups.splice(0).reverse()) cleanup();
      const left = [...presences.values()];
      presences.clear();
      await Promise.all([...stoppingPresences.splice(0), ...left.map((p) => p.link?.stop())]);
      await conn?.stop({ topic: topics.state, payload: offline(), retain: true });
      eventbus.close();
      await broker?.close();
    },
  };
}

function loopbackFor(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** One end of an in-memory pair whose other end the embedded broker serves (memory-pair.ts). */
function inProcessLink(broker: EmbeddedBroker): Duplex {
  const [client, server] = memoryPair();
  broker.handleOwn(server);
  return client;
}
