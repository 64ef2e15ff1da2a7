// The runtime's MQTT client (mqtt.js): reconnects with exponential backoff, never queues QoS 0
// messages while disconnected, keeps a table of subscriptions that it renews on every connect,
// and dispatches incoming messages to handlers by topic filter. What it reads is limited as it
// arrives (packet-limit.ts): a PUBLISH over `maxPacketBytes` is skipped before it is buffered. To
// an external broker it speaks MQTT 5 and declares that limit as its maximum packet size, so the
// broker does not even send such a message; a broker that answers "unacceptable protocol version"
// gets MQTT 3.1.1 from then on. The embedded broker (aedes) speaks 3.1.1.
import { EventEmitter } from 'node:events';
import mqtt, { MqttClient, type IClientOptions } from 'mqtt';
import type { Duplex } from 'node:stream';
import type { Logger } from '../log.js';
import { WarningLimiter } from '../log/limit.js';
import { MAX_READ_PACKET_BYTES } from '../shared/limits.js';
import { Backoff } from './backoff.js';
import { BrokerLiveness } from './liveness.js';
import { InboundLimit } from './packet-limit.js';
import { liveCommands } from './commands.js';
import './packet-numbers.js';
import { topicMatches } from './topics.js';

/** `retained`: a copy the broker kept, handed to a new subscription (not a message sent now). */
export type MessageHandler = (topic: string, payload: Buffer, retained: boolean) => void;

export interface SubscribeOptions {
  /** The filter carries commands: retained copies and the empty messages that clear them are skipped (commands.ts). */
  commands?: boolean;
  /** Told at each acknowledgement of the subscription (every (re)connect): `ok` false when the broker refused it. */
  subscribed?: (ok: boolean) => void;
}

export interface Will {
  topic: string;
  payload: string;
  retain: boolean;
}

export interface ConnectionOptions {
  url: string;
  clientId: string;
  will?: Will;
  username?: string;
  password?: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized?: boolean;
  keepaliveSeconds?: number;
  backoff?: Backoff;
  log: Logger;
  /** Connect over this stream (made anew for every connect) instead of dialling `url`: the embedded broker in the same process. */
  stream?: () => Duplex;
  /** The largest packet read (default MAX_READ_PACKET_BYTES); a larger PUBLISH is skipped unread. */
  maxPacketBytes?: number;
  /** Told of each PUBLISH skipped for its size: its topic (cut to 256 bytes) and size. */
  onOversized?: (topic: string, bytes: number) => void;
}

export interface ConnectionStatus {
  connected: boolean;
  url: string;
  clientId: string;
  connectedSince: string | null;
  connects: number;
  lastError: string | null;
  /** The MQTT version spoken: 5, or 4 (3.1.1) with the embedded broker or one that refused 5. */
  protocolVersion: 4 | 5;
  /** Connected and every subscription acknowledged by the broker. */
  subscribed: boolean;
}

const STOP_LIMIT_MS = 2000;
/** Keepalive, and how long a liveness probe may go unanswered: a hung broker is given up on within 10 s. */
const KEEPALIVE_SECONDS = 10;
/** CONNACK codes of a broker that does not speak the MQTT version asked: 1 (3.1.1's), 0x84 (MQTT 5's). */
const UNSUPPORTED_VERSION = new Set([1, 0x84]);

export class MqttConnection extends EventEmitter<{ connect: []; disconnect: [] }> {
  private client: MqttClient | null = null;
  private liveness: BrokerLiveness | null = null;
  private readonly handlers = new Map<string, Set<MessageHandler>>();
  /** The `subscribed` listeners of each filter (SubscribeOptions). */
  private readonly acks = new Map<string, Set<(ok: boolean) => void>>();
  private readonly backoff: Backoff;
  private retry: NodeJS.Timeout | null = null;
  private stopping = false;
  private wasConnected = false;
  /** A first attempt to connect has ended (connected or failed). */
  private attemptEnded = false;
  private connectedSince: Date | null = null;
  private connects = 0;
  private lastError: string | null = null;
  private outageLogged = false;
  private protocolVersion: 4 | 5;
  /** A handler that throws on a message would throw on the next like it: one line a minute per filter. */
  private readonly failures: WarningLimiter;
  /** Retained commands skipped at each (re)subscribe: one line a minute per filter. */
  private readonly replays: WarningLimiter;
  /** SUBSCRIBEs sent on this connection and not yet acknowledged. */
  private unacked = 0;

  constructor(private readonly opts: ConnectionOptions) {
    super();
    this.backoff = opts.backoff ?? new Backoff();
    this.protocolVersion = opts.stream ? 4 : 5;
    this.failures = new WarningLimiter(opts.log, { level: 'error' });
    this.replays = new WarningLimiter(opts.log);
  }

  get connected(): boolean {
    return this.client?.connected === true;
  }

  /** Whether a try to connect has ended since the start, either way: before that, not connected is not yet unreachable. */
  get tried(): boolean {
    return this.attemptEnded;
  }

  /** The broker URL without credentials, for logs and status. */
  get displayUrl(): string {
    return redact(this.opts.url);
  }

  start(): void {
    if (this.client) return;
    const o = this.opts;
    const maxPacket = o.maxPacketBytes ?? MAX_READ_PACKET_BYTES;
    const options: IClientOptions = {
      clientId: o.clientId,
      protocolVersion: this.protocolVersion,
      ...(this.protocolVersion === 5 ? { properties: { maximumPacketSize: maxPacket } } : {}),
      clean: true,
      keepalive: o.keepaliveSeconds ?? KEEPALIVE_SECONDS,
      reschedulePings: false, // ping every keepalive even while publishing, so a hung broker is noticed
      connectTimeout: 10_000,
      reconnectPeriod: 0, // reconnects are scheduled here, with backoff
      resubscribe: false, // subscriptions are renewed here on every connect
      queueQoSZero: false,
      username: o.username,
      password: o.password,
      ca: o.ca,
      cert: o.cert,
      key: o.key,
      rejectUnauthorized: o.rejectUnauthorized,
      will: o.will
        ? { topic: o.will.topic, payload: Buffer.from(o.will.payload), retain: o.will.retain, qos: 0 }
        : undefined,
    };
    const limited = (stream: Duplex) =>
      new InboundLimit(stream, maxPacket, (topic, bytes) => this.opts.onOversized?.(topic, bytes));
    const client = o.stream
      ? inProcessClient(() => limited(o.stream!()), options)
      : limitedClient(o.url, options, limited);
    this.client = client;
    const keepaliveMs = (o.keepaliveSeconds ?? KEEPALIVE_SECONDS) * 1000;
    this.liveness = new BrokerLiveness(client, keepaliveMs, (silentMs) => {
      this.lastError = `no answer from the broker for ${Math.round(silentMs / 1000)} s`;
      this.opts.log.warn(
        { url: this.displayUrl, silentMs: Math.round(silentMs) },
        `mqtt broker ${this.displayUrl} has not answered for ${Math.round(silentMs / 1000)} s; reconnecting`,
      );
    });
    client.on('connect', () => this.onConnect());
    client.on('close', () => this.onClose());
    client.on('error', (err) => {
      this.lastError = (err as NodeJS.ErrnoException).code ?? err.message;
      const code = (err as { code?: unknown }).code;
      if (this.protocolVersion === 5 && typeof code === 'number' && UNSUPPORTED_VERSION.has(code)) {
        // The next attempt (onClose schedules it) speaks 3.1.1; the incoming limit stays.
        this.protocolVersion = 4;
        client.options.protocolVersion = 4;
        delete client.options.properties;
        this.opts.log.info(
          { url: this.displayUrl },
          `mqtt broker ${this.displayUrl} does not speak MQTT 5; using 3.1.1 (messages over ${maxPacket} bytes are skipped as they arrive)`,
        );
      }
    });
    client.on('message', (topic, payload, packet) => this.dispatch(topic, payload, packet.retain));
  }

  /** Publish now if connected; otherwise drop the message and return false. */
  publish(topic: string, payload: string | Buffer, opts: { retain?: boolean } = {}): boolean {
    const client = this.client;
    if (!client?.connected) return false;
    client.publish(topic, payload, { qos: 0, retain: opts.retain ?? false }, (err) => {
      if (err) this.opts.log.debug({ topic, err: err.message }, 'mqtt publish dropped');
    });
    return true;
  }

  /**
   * Publish with QoS 1: true once the broker acknowledged it (and, over MQTT 5, took it: a broker
   * whose access rules refuse it says so); false at once while disconnected, and when it was
   * refused or the connection ended before the acknowledgement.
   */
  publishConfirmed(topic: string, payload: string | Buffer, opts: { retain?: boolean } = {}): Promise<boolean> {
    const client = this.client;
    if (!client?.connected) return Promise.resolve(false);
    return new Promise((resolve) =>
      client.publish(topic, payload, { qos: 1, retain: opts.retain ?? false }, (err) => {
        if (err) this.opts.log.debug({ topic, err: err.message }, 'mqtt publish not acknowledged');
        resolve(!err);
      }),
    );
  }

  /** Connected, the broker answered the last probe and nothing is waiting to be sent: emitting now cannot queue stale data. */
  get clear(): boolean {
    return this.connected && (this.liveness?.clear ?? false);
  }

  /** Ask the broker to confirm it has read everything sent so far (see liveness.ts). */
  probe(): void {
    this.liveness?.probe();
  }

  /** Register a handler for a topic filter (wildcards allowed). Returns the unsubscribe function. */
  subscribe(filter: string, given: MessageHandler, opts: SubscribeOptions = {}): () => void {
    const handler = opts.commands
      ? liveCommands(given, (topic) =>
          this.replays.warn(
            filter,
            { topic },
            `mqtt: a command retained on the broker on ${topic} was skipped: commands are applied when sent, not again at each connect; clear it with an empty retained message (mosquitto_pub -r -n -t '${topic}')`,
          ),
        )
      : given;
    const acked = opts.subscribed;
    if (acked) {
      const acks = this.acks.get(filter) ?? new Set();
      this.acks.set(filter, acks.add(acked));
    }
    let set = this.handlers.get(filter);
    if (!set) {
      set = new Set();
      this.handlers.set(filter, set);
      if (this.connected) this.sendSubscribe([filter]);
    }
    set.add(handler);
    return () => {
      if (acked) this.acks.get(filter)?.delete(acked);
      if (!this.acks.get(filter)?.size) this.acks.delete(filter);
      const current = this.handlers.get(filter);
      if (!current?.delete(handler) || current.size) return;
      this.handlers.delete(filter);
      if (this.connected)
        this.client!.unsubscribe(
          filter,
          (err) => err && this.opts.log.debug({ filter, err: err.message }, 'mqtt unsubscribe failed'),
        );
    };
  }

  /** Publish `final` (if connected), then disconnect cleanly. Never takes more than ~2 s. */
  async stop(final?: { topic: string; payload: string; retain: boolean }): Promise<void> {
    this.stopping = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const client = this.client;
    if (!client) return;
    const work = async () => {
      if (client.connected && final)
        await client.publishAsync(final.topic, final.payload, { qos: 0, retain: final.retain });
      await client.endAsync(!client.connected);
    };
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_LIMIT_MS)));
    try {
      await Promise.race([work(), limit]);
    } catch (e) {
      this.opts.log.warn({ err: (e as Error).message }, 'mqtt clean disconnect failed');
    } finally {
      clearTimeout(timer);
      if (!client.disconnected) client.end(true);
    }
  }

  status(): ConnectionStatus {
    return {
      connected: this.connected,
      url: this.displayUrl,
      clientId: this.opts.clientId,
      connectedSince: this.connectedSince?.toISOString() ?? null,
      connects: this.connects,
      lastError: this.lastError,
      protocolVersion: this.protocolVersion,
      subscribed: this.connected && this.unacked === 0,
    };
  }

  private onConnect(): void {
    this.attemptEnded = true;
    this.backoff.reset();
    this.wasConnected = true;
    this.outageLogged = false;
    this.connects++;
    this.connectedSince = new Date();
    this.lastError = null;
    this.opts.log.info({ url: this.displayUrl }, `mqtt connected to ${this.displayUrl}`);
    if (this.handlers.size) this.sendSubscribe([...this.handlers.keys()]);
    this.emit('connect');
  }

  private onClose(): void {
    this.attemptEnded = true;
    this.unacked = 0;
    const lost = this.wasConnected;
    this.wasConnected = false;
    this.connectedSince = null;
    if (lost) this.emit('disconnect');
    if (this.stopping || this.retry) return;
    const delay = this.backoff.next();
    const message = `mqtt ${lost ? 'connection to' : 'cannot connect to'} ${this.displayUrl} ${lost ? 'lost' : 'failed'}${this.lastError ? ` (${this.lastError})` : ''}; retrying in ${delay} ms`;
    if (lost || !this.outageLogged)
      this.opts.log.warn({ url: this.displayUrl, error: this.lastError, retryMs: delay }, message);
    else this.opts.log.debug({ url: this.displayUrl, error: this.lastError, retryMs: delay }, message);
    this.outageLogged = true;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (!this.stopping) this.client?.reconnect();
    }, delay);
  }

  private sendSubscribe(filters: string[]): void {
    const client = this.client!;
    this.unacked++;
    client.subscribe(filters, { qos: 0 }, (err, _subs, packet) => {
      const current = this.client === client && client.connected;
      if (current) this.unacked = Math.max(0, this.unacked - 1);
      if (err) this.opts.log.warn({ filters, err: err.message }, 'mqtt subscribe failed');
      if (!current) return;
      // One code per filter; a code from 0x80 on is the broker's refusal of that filter.
      const codes = (packet as { granted?: number[] } | undefined)?.granted;
      filters.forEach((filter, i) => {
        const ok = codes ? ((codes[i] ?? 0x80) & 0x80) === 0 : !err;
        for (const fn of this.acks.get(filter) ?? []) fn(ok);
      });
    });
  }

  private dispatch(topic: string, payload: Buffer, retained: boolean): void {
    for (const [filter, set] of this.handlers) {
      if (!topicMatches(filter, topic)) continue;
      for (const handler of set) {
        try {
          handler(topic, payload, retained);
        } catch (e) {
          this.failures.warn(filter, { topic, err: e }, `mqtt message handler for ${filter} failed`);
        }
      }
    }
  }
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/**
 * mqtt.js' own transport for the URL (TCP, TLS, websocket, with its options), each stream it
 * makes wrapped by `wrap`. The client is made without connecting, its stream builder wrapped,
 * then connected: mqtt.js has no other hook between its transport and its parser.
 */
function limitedClient(url: string, options: IClientOptions, wrap: (stream: Duplex) => Duplex): MqttClient {
  const client = mqtt.connect(url, { ...options, manualConnect: true });
  const own = client as unknown as { streamBuilder: (c: MqttClient) => Duplex };
  const build = own.streamBuilder;
  own.streamBuilder = (c) => wrap(build(c));
  client.connect();
  return client;
}

function inProcessClient(stream: () => Duplex, options: IClientOptions): MqttClient {
  const client = new MqttClient(() => stream() as never, options);
  client.on('error', () => {}); // as mqtt.connect does; errors are handled by the 'error' listener above
  return client;
}
