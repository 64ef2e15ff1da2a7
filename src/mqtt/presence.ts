// A retained topic saying whether the service is up, whose "down" message is also a last will,
// for clients that must not parse the state message to know it: Home Assistant's availability
// (`online`/`offline`), the fleet's presence message (src/fleet/peers.ts, JSON).
// MQTT gives a connection one will, and the service connection's will is the offline Spark.state
// the Brewblox UI reads; so each presence topic gets its own small connection to the same broker
// (same options, own client id), whose will is the "down" message. The topic says "up" only while
// the service's own connection is up too; "down" when that one drops (this link still up), on a
// clean stop, and from the broker when this link dies without one (kill -9, power loss, network).
// After a power cut the broker holds the lost run's link until its keepalive runs out, then sends
// its will, retained, over this run's "up": so the link hears its own topic and, when a "down"
// comes while the service is up, says "up" again (at most once a second).
import { SpacedCall } from '../shared/spaced-call.js';
import type { MqttConnection, Will } from './connection.js';

export const ONLINE = 'online';
export const OFFLINE = 'offline';

/** The two messages of a presence topic, made when they are sent (the will when the link is made). */
export interface PresencePayloads {
  online: () => string;
  offline: () => string;
  /** Whether a message on the topic says "down" (this run's, or a lost run's last will). */
  isDown: (payload: Buffer) => boolean;
}

/** Home Assistant's availability payloads. */
export const AVAILABILITY: PresencePayloads = {
  online: () => ONLINE,
  offline: () => OFFLINE,
  isDown: (payload) => payload.toString() === OFFLINE,
};

/** At most one "up" again this often: a client sending "down" on the topic gets no flood back. */
export const REASSERT_INTERVAL_MS = 1000;

export class Presence {
  private link: MqttConnection | null = null;
  private unsubscribe: (() => void) | null = null;
  /** Says "up" again now, or once the limit allows. */
  private readonly reassert = new SpacedCall(REASSERT_INTERVAL_MS, () => this.sync());
  private readonly sync = () =>
    this.publish(this.o.main.connected ? this.o.payloads.online() : this.o.payloads.offline());
  /** A message on the topic: a "down" while the service is up is a lost run's will, or stale. */
  private readonly heard = (_topic: string, payload: Buffer) => {
    if (this.link && this.o.main.connected && this.o.payloads.isDown(payload)) this.reassert.call();
  };

  constructor(
    private readonly o: {
      topic: string;
      main: MqttConnection;
      payloads: PresencePayloads;
      /** A new connection with the service's connection options and this will. */
      connect: (will: Will) => MqttConnection;
    },
  ) {}

  start(): void {
    if (this.link) return;
    this.link = this.o.connect({ topic: this.o.topic, payload: this.o.payloads.offline(), retain: true });
    this.link.on('connect', this.sync);
    this.unsubscribe = this.link.subscribe(this.o.topic, this.heard);
    this.o.main.on('connect', this.sync);
    this.o.main.on('disconnect', this.sync);
    this.link.start();
  }

  async stop(): Promise<void> {
    this.o.main.off('connect', this.sync);
    this.o.main.off('disconnect', this.sync);
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.reassert.cancel();
    const link = this.link;
    this.link = null;
    if (!link) return;
    await link.stop({ topic: this.o.topic, payload: this.o.payloads.offline(), retain: true });
  }

  private publish(payload: string): void {
    this.link?.publish(this.o.topic, payload, { retain: true });
  }
}
