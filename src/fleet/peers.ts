// The other controllers on a shared broker (issue 29.6, 45.1): each controller keeps a small
// retained presence message on `<root>/fleet/<id>` (its id, whether it is online, its version and
// where its dashboard is), with an offline one as the last will of its own link (mqtt/presence.ts),
// and reads the others' for the dashboard's "Controllers" list. The list never reads a state
// message: with 50 controllers, every one parsing every other's 15 KB state every 5 s made the
// broker's traffic grow with N²; presence messages change only when a controller comes or goes.
// What a peer sends is checked before it is parsed: a message over PRESENCE_MAX_BYTES or a
// topic whose id breaks the service-id rule is dropped and counted. Bounded: past `max`
// controllers the one seen longest ago is dropped, counted and logged (once a minute).
import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from '../log.js';
import { WarningLimiter } from '../log/limit.js';
import { parseJson } from '../shared/json.js';
import { isServiceId, SERVICE_ID_MAX_LENGTH } from '../shared/service-id.js';
import { type Twin, TwinWatch } from './twin.js';

export const FLEET_MAX = 100;
/** A presence message is a few hundred bytes; anything larger is not one. */
export const PRESENCE_MAX_BYTES = 1024;
const URL_MAX_LENGTH = 512;

export interface Peer {
  serviceId: string;
  online: boolean;
  /** For an online controller, now (the broker holds its link); for an offline one, when this controller learned it went offline (ISO 8601). */
  lastSeen: string;
  version: string | null;
  /** Where its dashboard is, or null when it publishes none. */
  dashboardUrl: string | null;
}

/** What a controller says of itself on `<root>/fleet/<id>`. */
export interface Presence {
  serviceId: string;
  online: boolean;
  version: string;
  dashboardUrl: string | null;
  /** An id of this run of the controller: a presence of another run on this one's topic is a twin (twin.ts). */
  instance: string;
}

/** What the fleet needs of the bus (app.mqtt). */
export interface FleetBus {
  subscribeRaw(filter: string, handler: (topic: string, payload: Buffer, retained: boolean) => void): () => void;
  presence(
    topic: string,
    payloads: { online: () => string; offline: () => string; isDown: (payload: Buffer) => boolean },
  ): () => void;
  publish(topic: string, payload: unknown): boolean;
}

export interface FleetOptions {
  serviceId: string;
  topicRoot: string;
  version: string;
  /** This controller's dashboard address, for the others. */
  dashboardUrl: () => string | null;
  log: Pick<Logger, 'warn' | 'info'>;
  max?: number;
  /** This run's id (default: random). */
  instance?: string;
  /** Timers for an answer to a twin held back by its limit (twin.ts; default setTimeout). */
  later?: (fn: () => void, ms: number) => void;
  /** Wall clock, epoch ms. */
  now?: () => number;
  /** Monotonic ms: when a controller was seen, so a wall-clock jump since does not move it. */
  monotonic?: () => number;
}

interface Entry extends Omit<Peer, 'lastSeen'> {
  /** Monotonic ms. */
  lastSeen: number;
}

const text = (v: unknown, max = 64): string | null =>
  typeof v === 'string' && v.length > 0 && v.length <= max ? v : null;
const httpUrl = (v: unknown): string | null => {
  const s = text(v, URL_MAX_LENGTH);
  if (!s) return null;
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
};

export function fleetTopic(topicRoot: string, serviceId: string): string {
  return `${topicRoot}/fleet/${serviceId}`;
}

export class FleetPeers {
  // Map order is the order of last update: the first entry is the one seen longest ago.
  private readonly peers = new Map<string, Entry>();
  private readonly warnings: WarningLimiter;
  private readonly prefix: string;
  private readonly max: number;
  private readonly now: () => number;
  private readonly monotonic: () => number;
  private readonly counts = { messages: 0, dropped: 0, ignored: 0 };
  private readonly instance: string;
  private readonly twins: TwinWatch;
  private bus: FleetBus | null = null;

  constructor(private readonly o: FleetOptions) {
    this.prefix = `${o.topicRoot}/fleet/`;
    this.max = o.max ?? FLEET_MAX;
    this.now = o.now ?? Date.now;
    this.monotonic = o.monotonic ?? (() => performance.now());
    this.warnings = new WarningLimiter(o.log);
    this.instance = o.instance ?? randomBytes(6).toString('hex');
    this.twins = new TwinWatch({
      serviceId: o.serviceId,
      instance: this.instance,
      answer: () => this.bus?.publish(fleetTopic(o.topicRoot, o.serviceId), this.own(true)),
      log: o.log,
      monotonic: this.monotonic,
      later: o.later,
    });
  }

  get filter(): string {
    return `${this.prefix}+`;
  }

  /** This controller's presence message. */
  own(online: boolean): Presence {
    return {
      serviceId: this.o.serviceId,
      online,
      version: this.o.version,
      dashboardUrl: this.o.dashboardUrl(),
      instance: this.instance,
    };
  }

  /** Keep this controller's presence on the bus and read the others'. Returns the detach function. */
  attach(bus: FleetBus): () => void {
    this.bus = bus;
    const offPresence = bus.presence(fleetTopic(this.o.topicRoot, this.o.serviceId), {
      online: () => JSON.stringify(this.own(true)),
      offline: () => JSON.stringify(this.own(false)),
      // This run's offline, or a lost run's last will (a power cut): the link says online again.
      isDown: (payload) => {
        const parsed = parseJson(payload, { maxBytes: PRESENCE_MAX_BYTES, what: 'a presence message' });
        return parsed.ok && (parsed.value as Partial<Presence> | null)?.online === false;
      },
    });
    const offSubscription = bus.subscribeRaw(this.filter, (topic, payload, retained) =>
      this.handle(topic, payload, retained),
    );
    return () => {
      offSubscription();
      offPresence();
      this.bus = null;
    };
  }

  /** A message on a presence topic; `retained`: a copy the broker kept from before this subscription. */
  handle(topic: string, payload: Buffer, retained = false): void {
    this.counts.messages++;
    const id = topic.startsWith(this.prefix) ? topic.slice(this.prefix.length) : '';
    if (id !== this.o.serviceId && !isServiceId(id))
      return this.ignore(
        `a topic whose id is not a service id (${id.length > SERVICE_ID_MAX_LENGTH ? `${id.length} characters` : JSON.stringify(id)})`,
      );
    if (payload.length === 0) {
      if (id === this.o.serviceId) return;
      this.peers.delete(id); // a retained presence cleared: the controller is gone for good
      return;
    }
    const parsed = parseJson(payload, { maxBytes: PRESENCE_MAX_BYTES, what: `the message on ${topic}` });
    if (!parsed.ok) return this.ignore(parsed.reason);
    const msg = parsed.value as Partial<Presence> | null;
    if (typeof msg !== 'object' || msg === null || msg.serviceId !== id || typeof msg.online !== 'boolean')
      return this.ignore(`the message on ${topic}: not a presence message of ${id}`);
    if (id === this.o.serviceId) {
      const m = { instance: text(msg.instance), online: msg.online, dashboardUrl: httpUrl(msg.dashboardUrl) };
      return this.twins.seen(m, retained);
    }
    this.touch(id, {
      serviceId: id,
      online: msg.online,
      lastSeen: this.monotonic(),
      version: text(msg.version),
      dashboardUrl: httpUrl(msg.dashboardUrl),
    });
  }

  private ignore(what: string): void {
    this.counts.ignored++;
    this.warnings.warn('ignored', { ignored: this.counts.ignored }, `fleet: ignored ${what}`);
  }

  private touch(id: string, entry: Entry): void {
    const isNew = !this.peers.delete(id);
    if (isNew && this.peers.size >= this.max) {
      const oldest = this.peers.keys().next().value as string;
      this.peers.delete(oldest);
      this.counts.dropped++;
      this.warnings.warn(
        'fleet',
        { dropped: oldest, max: this.max, droppedTotal: this.counts.dropped },
        `fleet: more than ${this.max} controllers on the broker; dropped the one seen longest ago (${oldest}) from the list`,
      );
    }
    this.peers.set(id, entry);
  }

  /** The controllers seen, most recently seen first. */
  list(): Peer[] {
    const now = this.now();
    const mono = this.monotonic();
    return [...this.peers.values()].reverse().map(({ lastSeen, ...p }) => ({
      ...p,
      lastSeen: new Date(p.online ? now : Math.round(now - (mono - lastSeen))).toISOString(),
    }));
  }

  /** Another controller online with this one's service id, or null. */
  twin(): Twin | null {
    return this.twins.current();
  }

  status(): {
    controllers: number;
    max: number;
    dropped: number;
    messages: number;
    ignored: number;
    sameServiceId: Twin | null;
  } {
    return { controllers: this.peers.size, max: this.max, ...this.counts, sameServiceId: this.twin() };
  }

  routes(): FastifyPluginAsync {
    const peer = {
      type: 'object',
      properties: {
        serviceId: { type: 'string' },
        online: { type: 'boolean' },
        lastSeen: { type: 'string' },
        version: { type: ['string', 'null'] },
        dashboardUrl: { type: ['string', 'null'] },
      },
    };
    const schema = {
      tags: ['system'],
      summary: 'Other controllers on the broker',
      description: `The controllers whose presence messages (\`<root>/fleet/<id>\`) this one sees on the broker (not itself), most recently seen first; at most ${this.max}, the one seen longest ago dropped (counted in dropped). lastSeen is now for an online controller, and when this one learned it went offline for an offline one.`,
      response: {
        200: {
          type: 'object',
          properties: {
            serviceId: { type: 'string' },
            controllers: { type: 'array', items: peer },
            max: { type: 'integer' },
            dropped: { type: 'integer' },
          },
        },
      },
    };
    return async (app) => {
      app.get('/fleet', { schema }, async () => ({
        serviceId: this.o.serviceId,
        controllers: this.list(),
        max: this.max,
        dropped: this.counts.dropped,
      }));
    };
  }
}

/** This controller's dashboard address for the others: --public-url, else this machine's name (or the bound host) and the HTTP port. */
export function dashboardUrlFor(o: {
  publicUrl?: string;
  host: string;
  port: number | null;
  hostname: string;
}): string | null {
  if (o.publicUrl) return new URL(o.publicUrl).href;
  if (!o.port) return null;
  const host = o.host === '0.0.0.0' || o.host === '::' ? o.hostname : o.host;
  return new URL(`http://${host.includes(':') ? `[${host}]` : host}:${o.port}/`).href;
}
