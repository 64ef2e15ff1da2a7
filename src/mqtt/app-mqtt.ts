// What the rest of the app sees of the MQTT subsystem (index.ts): its bus and its status report.
import type { FastifyPluginAsync } from 'fastify';
import type { ConnectionStatus, SubscribeOptions } from './connection.js';
import type { EmissionCounts } from './emission.js';
import type { PresencePayloads } from './presence.js';
import type { RetainedStatus } from './retained.js';
import type { Topics } from './topics.js';

/** What the rest of the app (e.g. the datastore) uses to talk on the bus. */
export interface AppMqtt {
  readonly topics: Topics;
  readonly connected: boolean;
  /** A first try to connect has ended since the start (connected or failed): until then, not connected says nothing of the broker. */
  readonly triedToConnect: boolean;
  /** Publish now (QoS 0). Objects are sent as JSON, strings and buffers as they are. Returns false, dropping the message, while disconnected. */
  publish(topic: string, payload: unknown, opts?: { retain?: boolean }): boolean;
  /** Publish with QoS 1 (payload as for publish): true once the broker acknowledged and took it; false at once while disconnected, and when refused (over MQTT 5, by its access rules) or cut off first. */
  publishConfirmed(topic: string, payload: unknown, opts?: { retain?: boolean }): Promise<boolean>;
  /** Receive JSON messages on a topic filter (`+`/`#` allowed); an empty payload arrives as null. A payload over `maxBytes` (default BODY_LIMIT) or nesting deeper than `maxDepth` (default MAX_JSON_DEPTH) is dropped unparsed, counted and logged (once a minute per filter, naming the topic). `commands`: see commands.ts. Returns the unsubscribe function. */
  subscribe(
    filter: string,
    handler: (topic: string, payload: unknown) => void,
    opts?: { maxBytes?: number; maxDepth?: number } & SubscribeOptions,
  ): () => void;
  /** Called on every (re)connect of the service's client, e.g. to publish retained messages again. Returns the remove function. */
  onConnect(fn: () => void): () => void;
  /** Receive payloads as they arrived (bytes), for handlers that check size or parse themselves; `retained`: a copy the broker kept, handed to the new subscription. */
  subscribeRaw(
    filter: string,
    handler: (topic: string, payload: Buffer, retained: boolean) => void,
    opts?: SubscribeOptions,
  ): () => void;
  /** The controller's own history messages as they are published (the object and the size of its
   *  text), so an in-process subscriber need not parse them back. Returns the remove function. */
  onOwnHistory(fn: (message: unknown, bytes: number) => void): () => void;
  /** Keep a retained presence topic (presence.ts): `online`/`offline` unless other payloads are given, "offline" also its last will. Returns the remove function, which publishes "offline". */
  presence(topic: string, payloads?: PresencePayloads): () => void;
  /** TCP port of the embedded broker once started; null with an external broker. */
  readonly brokerPort: number | null;
  /** The /eventbus websocket route, for the HTTP app's root. */
  readonly routes: FastifyPluginAsync;
  status(): MqttStatus;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface MqttStatus extends ConnectionStatus {
  broker: 'embedded' | 'external';
  brokerPort: number | null;
  topicRoot: string;
  emitIntervalMs: number;
  ttl: string;
  emitted: EmissionCounts;
  eventbusClients: number;
  /** MQTT clients of the embedded broker (TCP or /eventbus) closed because they did not read what was sent. */
  slowClientsClosed: number;
  /** Publishes (dropped) and subscriptions (failed) the embedded broker's access rules refused (acl.ts), and connections it refused past MAX_BROKER_CLIENTS; with an external broker, the viewers' publishes the /eventbus bridge dropped (bridge-publishes.ts). */
  refused: { publish: number; subscribe: number; connect: number };
  /** What clients have the embedded broker keep retained, against its bound (retained.ts); null with an external broker. */
  retained: RetainedStatus | null;
  /** Messages dropped (bad block API messages; other subscribed topics not JSON or too large; packets over the read limit, skipped unread), and warnings held back. */
  dropped: { blockApi: number; other: number; oversized: number; warningsSuppressed: number };
}
