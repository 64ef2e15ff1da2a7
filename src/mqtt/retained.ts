// Retained messages on the embedded broker, bounded (RETAINED_CLIENT_MESSAGES and _BYTES in
// src/shared/limits.ts). aedes keeps every retained message it is sent, on as many topics as
// clients invent, so one client could fill the Pi's memory. What clients keep is counted by topic;
// a retained publish that would take clients past the bound loses its retain flag: it is still
// delivered to the subscribers of the moment (which in MQTT 3.1.1 get it without the flag anyway,
// §3.3.1.3), and no new subscriber gets it. MQTT 3.1.1 has no way to tell the publisher, and
// closing its connection would also cut off a client that merely keeps many states (Zigbee2MQTT),
// so the refusal is a warning (one a minute) and a count in `mqtt.retained.refused`.
// Always kept: a clear (an empty retained message, which frees room), a message replacing one of
// no fewer bytes on the same topic, and every retained message of the service's own connections,
// which are not counted: they grow with its blocks, not with what a client sends.
// Home Assistant's command topics are never kept retained, not even within the bound: a command
// is applied when it is sent (commands.ts), a retained copy would only wait there for nothing.
// Every topic a client may publish on is one some client may read (only `$` topics are not, and
// clients may not publish those: acl.ts), so no retained message is kept for no reader.
// Decision and count are in step: aedes stores a retained message in the same turn as `publish`
// is called (runSeries, then the memory persistence's storeRetained), and the count is taken
// where it stores.
import type { Aedes, AedesOptions } from 'aedes';
import { RETAINED_CLIENT_BYTES, RETAINED_CLIENT_MESSAGES } from '../shared/limits.js';

type AedesClient = Parameters<NonNullable<AedesOptions['authorizeSubscribe']>>[0];
type Packet = Parameters<Aedes['publish']>[0] & { payload: Buffer };
type Done = Parameters<Aedes['publish']>[1];
/** What aedes does but does not type: the publisher passed to `publish`, and its store. */
interface AedesInternals {
  publish(packet: Packet, client: AedesClient | null, done?: Done): void;
  persistence: { storeRetained(packet: Packet): Promise<void> };
}

export interface RetainedLimits {
  messages: number;
  bytes: number;
}

export interface RetainedOptions {
  /** True for the service's own connections, whose retained messages are neither counted nor refused. */
  isOwn: (client: AedesClient) => boolean;
  /** True for a command topic, on which nothing is kept retained. */
  isCommand: (topic: string) => boolean;
  /** A retained publish kept only live: why. */
  onRefused: (client: AedesClient, topic: string, why: string, kind: 'bound' | 'command') => void;
  limits?: RetainedLimits;
}

/** For status: what clients have kept retained, the retained publishes not kept, and the bound. */
export interface RetainedStatus {
  messages: number;
  bytes: number;
  refused: number;
  limits: RetainedLimits;
}

export class RetainedBound {
  /** Topics whose retained message a client wrote: bytes of topic and payload. */
  private readonly byClients = new Map<string, number>();
  private bytes = 0;
  private refusedCount = 0;
  private readonly limits: RetainedLimits;

  constructor(limits: RetainedLimits = { messages: RETAINED_CLIENT_MESSAGES, bytes: RETAINED_CLIENT_BYTES }) {
    this.limits = limits;
  }

  status(): RetainedStatus {
    return { messages: this.byClients.size, bytes: this.bytes, refused: this.refusedCount, limits: this.limits };
  }

  /** Null when a client may have `payloadBytes` kept retained on `topic`; else why not. */
  check(topic: string, payloadBytes: number): string | null {
    if (payloadBytes === 0) return null;
    const size = Buffer.byteLength(topic) + payloadBytes;
    const old = this.byClients.get(topic);
    if (old === undefined && this.byClients.size >= this.limits.messages)
      return `clients already have ${this.byClients.size} retained messages kept, the most the broker keeps for them`;
    if (size > (old ?? 0) && this.bytes - (old ?? 0) + size > this.limits.bytes)
      return `clients' retained messages would take ${this.bytes - (old ?? 0) + size} bytes, over the ${this.limits.bytes} the broker keeps for them`;
    return null;
  }

  refused(): void {
    this.refusedCount++;
  }

  /** A retained message was stored on `topic` (a clear when empty), by a client or by the service. */
  stored(topic: string, payloadBytes: number, byClient: boolean): void {
    const old = this.byClients.get(topic);
    if (old !== undefined) {
      this.bytes -= old;
      this.byClients.delete(topic);
    }
    if (!byClient || payloadBytes === 0) return;
    const size = Buffer.byteLength(topic) + payloadBytes;
    this.byClients.set(topic, size);
    this.bytes += size;
  }
}

/** Hold the retained messages `aedes` keeps for its clients to the bound; returns it, for status. */
export function limitRetained(broker: Aedes, o: RetainedOptions): RetainedBound {
  const aedes = broker as unknown as AedesInternals;
  const bound = new RetainedBound(o.limits);
  /** Whether the retained message being stored now came from a client (set around each publish). */
  let fromClient = false;
  const publish = aedes.publish;
  aedes.publish = function (this: AedesInternals, packet: Packet, client: AedesClient | null, done?: Done) {
    const own = !client || o.isOwn(client);
    if (packet.retain && !own && packet.payload.length > 0) {
      const command = o.isCommand(packet.topic);
      const why = command
        ? 'commands are applied when sent, not kept retained'
        : bound.check(packet.topic, packet.payload.length);
      if (why) {
        packet.retain = false;
        bound.refused();
        o.onRefused(client!, packet.topic, why, command ? 'command' : 'bound');
      }
    }
    const outer = fromClient;
    fromClient = !own;
    try {
      return publish.call(this, packet, client, done);
    } finally {
      fromClient = outer;
    }
  };

  const persistence = aedes.persistence;
  const storeRetained = persistence.storeRetained.bind(persistence);
  persistence.storeRetained = (packet) => {
    const payload = packet.payload;
    bound.stored(packet.topic, payload.length, fromClient);
    // The parser's payload is a view of the chunk it was read in (up to 64 KB, with the packets
    // around it): kept as it is, each one-byte message could hold a chunk. Kept: a copy of its
    // bytes alone, in memory of its own (a pooled copy would hold an 8 KB slab the same way).
    if (payload.buffer.byteLength <= payload.length + 256) return storeRetained(packet);
    const own = Buffer.allocUnsafeSlow(payload.length);
    payload.copy(own);
    return storeRetained({ ...packet, payload: own });
  };
  return bound;
}
