// The other controllers on a shared broker (issue 29.6): every Spark.state message on
// `<root>/state/<id>` (one level: patches are not read) tells a controller's id, whether it is
// online and where its dashboard is. Kept for the dashboard's "Controllers" list, read-only.
// Bounded: past `max` controllers the one seen longest ago is dropped, counted and logged (once
// a minute). Big state messages (many blocks) are parsed at most once per `parseIntervalMs` per
// controller: the status is all that is read, and 50 controllers x 200 blocks every few seconds
// would otherwise cost each controller a JSON parse of megabytes a minute. Offline messages are
// small and always read, so an online -> offline change is never missed.
import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from '../log.js';
import { WarningLimiter } from '../log/limit.js';
import { STATE_TYPE } from '../mqtt/state.js';

export const FLEET_MAX = 100;
const SMALL_MESSAGE = 8 * 1024;

export interface Peer {
  serviceId: string;
  online: boolean;
  /** When its last state message arrived (ISO 8601). */
  lastSeen: string;
  version: string | null;
  /** Where its dashboard is (`dashboardUrl` of its state status), or null when it publishes none. */
  dashboardUrl: string | null;
}

export interface FleetOptions {
  serviceId: string;
  topicRoot: string;
  log: Pick<Logger, 'warn'>;
  max?: number;
  parseIntervalMs?: number;
  now?: () => number;
}

interface Entry extends Omit<Peer, 'lastSeen'> {
  lastSeen: number;
  parsedAt: number;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 && v.length <= 512 ? v : null);
const httpUrl = (v: unknown): string | null => {
  const s = text(v);
  if (!s) return null;
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
};

export class FleetPeers {
  // Map order is the order of last update: the first entry is the one seen longest ago.
  private readonly peers = new Map<string, Entry>();
  private readonly warnings: WarningLimiter;
  private readonly prefix: string;
  private readonly max: number;
  private readonly now: () => number;
  private readonly counts = { messages: 0, dropped: 0, ignored: 0 };

  constructor(private readonly o: FleetOptions) {
    this.prefix = `${o.topicRoot}/state/`;
    this.max = o.max ?? FLEET_MAX;
    this.now = o.now ?? Date.now;
    this.warnings = new WarningLimiter(o.log);
  }

  get filter(): string {
    return `${this.prefix}+`;
  }

  attach(bus: {
    subscribeRaw(filter: string, handler: (topic: string, payload: Buffer) => void): () => void;
  }): () => void {
    return bus.subscribeRaw(this.filter, (topic, payload) => this.handle(topic, payload));
  }

  handle(topic: string, payload: Buffer): void {
    this.counts.messages++;
    const id = topic.startsWith(this.prefix) ? topic.slice(this.prefix.length) : '';
    if (!id || id.includes('/') || id === this.o.serviceId) return;
    const t = this.now();
    if (payload.length === 0) {
      this.peers.delete(id); // a retained state cleared: the controller is gone for good
      return;
    }
    const known = this.peers.get(id);
    if (known && payload.length > SMALL_MESSAGE && t - known.parsedAt < (this.o.parseIntervalMs ?? 15_000)) {
      this.touch(id, { ...known, lastSeen: t });
      return;
    }
    let status: Record<string, unknown>;
    try {
      const msg = JSON.parse(payload.toString('utf8'));
      if (
        msg?.type !== STATE_TYPE ||
        msg.key !== id ||
        typeof msg.data?.status !== 'object' ||
        msg.data.status === null
      )
        throw new Error('not a Spark.state message with a status');
      status = msg.data.status;
    } catch {
      this.counts.ignored++;
      return;
    }
    const online = typeof status.online === 'boolean' ? status.online : status.connection_status === 'SYNCHRONIZED';
    this.touch(id, {
      serviceId: id,
      online,
      lastSeen: t,
      parsedAt: t,
      version: text(status.version),
      dashboardUrl: httpUrl(status.dashboardUrl),
    });
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
    return [...this.peers.values()]
      .reverse()
      .map(({ parsedAt: _, lastSeen, ...p }) => ({ ...p, lastSeen: new Date(lastSeen).toISOString() }));
  }

  status(): { controllers: number; max: number; dropped: number; messages: number; ignored: number } {
    return { controllers: this.peers.size, max: this.max, ...this.counts };
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
      description: `The controllers whose Spark.state messages this one sees on the broker (not itself), most recently seen first; at most ${this.max}, the one seen longest ago dropped (counted in dropped).`,
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
