// A retained `online`/`offline` topic whose `offline` is also a last will, for clients that must
// not parse the state message to know the service is up (Home Assistant's availability).
// MQTT gives a connection one will, and the service connection's will is the offline Spark.state
// the Brewblox UI reads; so each presence topic gets its own small connection to the same broker
// (same options, own client id), whose will is `offline`. The topic says `online` only while the
// service's own connection is up too; `offline` when that one drops (this link still up), on a
// clean stop, and from the broker when this link dies without one (kill -9, power loss, network).
import type { MqttConnection, Will } from './connection.js';

export const ONLINE = 'online';
export const OFFLINE = 'offline';

export class Presence {
  private link: MqttConnection | null = null;
  private readonly sync = () => this.publish(this.o.main.connected ? ONLINE : OFFLINE);

  constructor(
    private readonly o: {
      topic: string;
      main: MqttConnection;
      /** A new connection with the service's connection options and this will. */
      connect: (will: Will) => MqttConnection;
    },
  ) {}

  start(): void {
    if (this.link) return;
    this.link = this.o.connect({ topic: this.o.topic, payload: OFFLINE, retain: true });
    this.link.on('connect', this.sync);
    this.o.main.on('connect', this.sync);
    this.o.main.on('disconnect', this.sync);
    this.link.start();
  }

  async stop(): Promise<void> {
    this.o.main.off('connect', this.sync);
    this.o.main.off('disconnect', this.sync);
    const link = this.link;
    this.link = null;
    if (!link) return;
    await link.stop({ topic: this.o.topic, payload: OFFLINE, retain: true });
  }

  private publish(payload: string): void {
    this.link?.publish(this.o.topic, payload, { retain: true });
  }
}
