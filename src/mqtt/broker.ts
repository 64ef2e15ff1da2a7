// The embedded broker: aedes (MQTT 3.1.1) on a TCP port, plus `handle(stream)` for websocket
// connections from /eventbus. Packets over MAX_PACKET_BYTES close the connection; a subscriber
// that does not read is closed once MQTT_CLIENT_QUEUE_BYTES wait for it (aedes itself writes on
// and only closes it after 60 s without a drain). Sessions end with their connection (cleanSession).
// Past MAX_BROKER_CLIENTS clients from outside logged in, a new one gets CONNACK 3, "server unavailable";
// a socket counts once its CONNECT has passed the login, so connections that never log in take no place.
import { Aedes, type AedesOptions } from 'aedes';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { Logger } from '../log.js';
import type { BusAuth, MqttIdentity } from './bus-auth.js';
import { REFUSED_TOPIC, type BrokerAcl } from './acl.js';
import { listen } from './listen.js';
import { hostProblem, isAddressInUse, portInUseMessage, PortInUseError } from '../shared/port-in-use.js';
import { MAX_BROKER_CLIENTS, MAX_PACKET_BYTES, MQTT_CLIENT_QUEUE_BYTES } from '../shared/limits.js';
import { SlowClients } from '../shared/slow-clients.js';
import { WarningLimiter } from '../log/limit.js';
import { limitPacketSize } from './packet-limit.js';
import { limitRetained, type RetainedBound, type RetainedStatus } from './retained.js';

export class EmbeddedBroker {
  /** Topics a client's own publications on which are not sent back to it: client id -> topics. */
  private readonly echoless: Map<string, Set<string>>;
  private readonly slow: SlowClients;
  /** Lines its clients can cause, one a minute per kind. */
  private readonly warnings: WarningLimiter;

  private constructor(
    private readonly aedes: Aedes,
    private readonly server: Server,
    readonly port: number,
    private readonly log: Logger,
    echoless: Map<string, Set<string>>,
    private readonly retainedBound: RetainedBound,
  ) {
    this.echoless = echoless;
    this.warnings = new WarningLimiter(log);
    this.slow = new SlowClients(MQTT_CLIENT_QUEUE_BYTES, (reason) =>
      this.warnings.warn('slow', { reason }, `mqtt broker: a subscriber ${reason}`),
    );
  }

  /** Subscribers closed because they did not read. */
  get slowClosed(): number {
    return this.slow.closed;
  }

  /** Retained messages clients have the broker keep, and the retained publishes it did not keep (retained.ts). */
  get retained(): RetainedStatus {
    return this.retainedBound.status();
  }

  /** Publishes and subscriptions the access rules refused (acl.ts), and connections refused past MAX_BROKER_CLIENTS. */
  get refused(): { publish: number; subscribe: number; connect: number } {
    return { ...refusals.get(this.aedes)! };
  }

  /**
   * Start aedes and listen on `host:port` (0 = a free port). Rejects when the port cannot be bound.
   * With `acl`, clients' publishes and subscriptions are held to its rules.
   */
  static async start(
    host: string,
    port: number,
    log: Logger,
    auth?: BusAuth,
    acl?: BrokerAcl,
  ): Promise<EmbeddedBroker> {
    const echoless = new Map<string, Set<string>>();
    // aedes stamps each publication with its publisher's id (not in its types).
    const authorizeForward: AedesOptions['authorizeForward'] = (client, packet) => {
      if ((packet as { clientId?: string }).clientId === client.id && echoless.get(client.id)?.has(packet.topic))
        return null;
      // A subscription outlives the role it was made with: a `$` topic (`$SYS`) is read by the
      // role the client has now, as its publishes are.
      if (packet.topic.charCodeAt(0) === 36 && acl?.subscribe(identityOf(client), packet.topic)) return null;
      return packet;
    };
    const counts = { publish: 0, subscribe: 0, connect: 0 };
    /** The connections of clients logged in (not the service's own), counted against MAX_BROKER_CLIENTS. */
    const connections = new Set<Duplex>();
    const login = auth?.enabled ? authenticateWith(auth) : null;
    const warnings = new WarningLimiter(log);
    const name = (who: MqttIdentity) => ('user' in who ? `user ${who.user}` : 'an anonymous client');
    const authorizePublish: AedesOptions['authorizePublish'] = (client, packet, done) => {
      const who = client ? identityOf(client) : { internal: true as const };
      const why =
        packet.topic.startsWith('$') && !('internal' in who)
          ? 'no client publishes a $ topic'
          : acl?.publish(who, packet.topic, packet.payload.length);
      if (why) {
        counts.publish++;
        warnings.warn(
          'refused publish',
          { topic: packet.topic, who: name(who), reason: why },
          `mqtt broker: dropped a publish on ${packet.topic} by ${name(who)}: ${why}`,
        );
        packet.topic = `${REFUSED_TOPIC}/${packet.topic}`;
        packet.retain = false;
      }
      done(null);
    };
    const authorizeSubscribe: AedesOptions['authorizeSubscribe'] = (client, sub, done) => {
      const why = client ? acl?.subscribe(identityOf(client), sub.topic) : null;
      if (!why) return done(null, sub);
      counts.subscribe++;
      warnings.warn(
        'refused subscribe',
        { filter: sub.topic, who: name(identityOf(client!)), reason: why },
        `mqtt broker: refused a subscription to ${sub.topic} by ${name(identityOf(client!))}: ${why}`,
      );
      done(null, null);
    };
    const aedes = await Aedes.createBroker({
      preConnect: cleanSession,
      authorizeForward,
      authorizePublish,
      authorizeSubscribe,
      authenticate: (client, username, password, done) => {
        const conn = client.conn as Duplex;
        const admit: typeof done = (err, ok) => {
          if (err || !ok || ownStreams.has(conn)) return done(err, ok);
          if (connections.size >= MAX_BROKER_CLIENTS) {
            counts.connect++;
            warnings.warn(
              'full',
              { limit: MAX_BROKER_CLIENTS },
              `mqtt broker: refused a connection: ${MAX_BROKER_CLIENTS} clients are connected, the most it serves at once`,
            );
            return done(Object.assign(new Error('server unavailable'), { returnCode: 3 as const }), false);
          }
          // A socket gone while its login ran has no close to come.
          if (!conn.destroyed) {
            connections.add(conn);
            conn.once('close', () => connections.delete(conn));
          }
          done(null, true);
        };
        if (login) login(client, username, password, admit);
        else admit(null, true);
      },
    });
    refusals.set(aedes, counts);
    const retained = limitRetained(aedes, {
      isOwn: (client) => 'internal' in identityOf(client),
      isCommand: (topic) => acl?.isCommand(topic) ?? false,
      onRefused: (client, topic, reason, kind) => {
        const who = `client ${client.id} (${name(identityOf(client))})`;
        warnings.warn(
          kind === 'bound' ? 'retained' : 'retained command',
          { topic, client: client.id, who: name(identityOf(client)), reason },
          kind === 'bound'
            ? `mqtt broker: a retained message on ${topic} from ${who} was delivered but not kept: ${reason}`
            : `mqtt broker: a command on ${topic} from ${who} was delivered, not kept retained: ${reason}`,
        );
      },
    });
    aedes.on('clientError', (client, err) =>
      log.debug({ client: client.id, err: err.message }, 'mqtt broker: client error'),
    );
    aedes.on('connectionError', (_client, err) => log.debug({ err: err.message }, 'mqtt broker: connection error'));
    let broker: EmbeddedBroker | null = null;
    const server = createServer((socket: Socket) => (broker ? broker.serve(socket) : socket.destroy()));
    try {
      await listen(server, port, host);
    } catch (e) {
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      if (isAddressInUse(e))
        throw new PortInUseError(
          `${portInUseMessage('MQTT broker', host, port, 'mqttPort')}; or use the broker already there with --mqtt-url mqtt://127.0.0.1:${port}`,
        );
      const hostError = hostProblem(e, host);
      if (hostError) throw hostError;
      throw new Error(
        `mqtt broker cannot listen on ${host}:${port} (${code}); another broker may be running: use it with --mqtt-url mqtt://127.0.0.1:${port}, or pick another --mqtt-port`,
      );
    }
    server.on('error', (err) => log.error({ err }, 'mqtt broker server error'));
    const actual = (server.address() as AddressInfo).port;
    log.info({ host, port: actual }, `mqtt broker listening on ${host}:${actual}`);
    broker = new EmbeddedBroker(aedes, server, actual, log, echoless, retained);
    return broker;
  }

  /**
   * The client `clientId` does not get its own publications on `topics` back through its
   * subscriptions. The controller subscribes to every controller's state and history (fleet,
   * history ingest) and drops its own on arrival; without this the broker would encode its
   * 140 KB state message and the client parse it back every 5 s for nothing.
   */
  noEcho(clientId: string, topics: string[]): () => void {
    this.echoless.set(clientId, new Set(topics));
    return () => this.echoless.delete(clientId);
  }

  /** Serve one MQTT connection arriving over another transport (a websocket stream). */
  handle(stream: Duplex, req?: IncomingMessage): void {
    this.serve(stream, req);
  }

  /** The service's own client over an in-memory pair: it reads in the same turn, its queue is not limited, and it may write its own topics. */
  handleOwn(stream: Duplex): void {
    ownStreams.add(stream);
    this.serve(stream, undefined, false);
  }

  private serve(stream: Duplex, req?: IncomingMessage, limitReading = true): void {
    this.aedes.handle(stream, req);
    limitPacketSize(stream, MAX_PACKET_BYTES, (bytes) =>
      this.warnings.warn(
        'too large',
        { bytes, limit: MAX_PACKET_BYTES },
        `mqtt broker: closed a connection sending a ${bytes}-byte packet; the limit is ${MAX_PACKET_BYTES} bytes`,
      ),
    );
    if (limitReading) limitQueue(stream, this.slow);
  }

  get clients(): number {
    return this.aedes.connectedClients;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.aedes.close(() => resolve()));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.log.debug('mqtt broker closed');
  }
}

/**
 * Every session is clean: aedes would keep a client's persistent session (clean session off) for
 * good after it went away, its subscriptions and every QoS 1 message on them queued in memory with
 * no limit. A client coming back finds no session (sessionPresent false), as after a restart of
 * this broker, whose sessions are in memory only; MQTT clients subscribe again then.
 */
const cleanSession: NonNullable<AedesOptions['preConnect']> = (_client, packet, done) => {
  packet.clean = true;
  done(null, true);
};

/**
 * aedes' CONNECT hook: refused clients get CONNACK return code 5, "not authorized". Refusals are
 * logged by the login limiter (one line a minute per address), not here.
 */
function authenticateWith(auth: BusAuth): NonNullable<AedesOptions['authenticate']> {
  const refused = () => Object.assign(new Error('not authorized'), { returnCode: 5 as const });
  return (client, username, password, done) => {
    const req = (client as { req?: IncomingMessage }).req;
    const conn = client.conn as Duplex & { remoteAddress?: string };
    const peer = { address: conn.remoteAddress ?? req?.socket.remoteAddress, req, conn, close: () => client.close() };
    auth.allowMqtt(username, password, peer).then(
      (who) => {
        if (who) identities.set(client, who);
        done(who ? null : refused(), who !== null);
      },
      () => done(refused(), false),
    );
  };
}

type AedesClient = Parameters<NonNullable<AedesOptions['authorizeSubscribe']>>[0];
/** Who each connection logged in as (authenticateWith); without auth there is no one to tell apart. */
const identities = new WeakMap<AedesClient, MqttIdentity>();
/** The service's own connections (handleOwn). */
const ownStreams = new WeakSet<Duplex>();
const refusals = new WeakMap<Aedes, { publish: number; subscribe: number; connect: number }>();

function identityOf(client: AedesClient): MqttIdentity {
  if (ownStreams.has(client.conn as Duplex)) return { internal: true };
  return identities.get(client) ?? { anonymous: true };
}

/**
 * Close the connection when a write finds more than the limit waiting for the client. aedes
 * writes every packet with `stream.write` (mqtt-packet's writeToStream), so the check sits in
 * front of this one stream's `write`: no wrapper on the path of every packet.
 */
function limitQueue(stream: Duplex, slow: SlowClients): void {
  const write = stream.write;
  stream.write = function (this: Duplex, ...args: Parameters<Duplex['write']>): boolean {
    if (slow.check(stream.writableLength) && !stream.destroyed) {
      stream.destroy();
      return false;
    }
    return write.apply(this, args);
  } as Duplex['write'];
}
