// What the MQTT side needs from authentication (implemented by src/auth): the embedded broker's
// CONNECT check, the /eventbus upgrade check, and the service's own client credentials.
import type { IncomingMessage } from 'node:http';

/** Something that closes and tells when it closed: a socket, a websocket stream. */
export interface Closable {
  destroyed?: boolean;
  once(event: 'close', listener: () => void): unknown;
}

/** The connection a CONNECT came on: where from, and how to end it if its login ends. */
export interface MqttPeer {
  /** The client's address (the per-address login limit). */
  address: string | undefined;
  /** The HTTP upgrade, for connections that came through /eventbus. */
  req?: IncomingMessage;
  conn: Closable;
  close(): void;
}

export interface BusAuth {
  readonly enabled: boolean;
  allowMqtt(username: string | undefined, password: Buffer | undefined, peer: MqttPeer): Promise<boolean>;
  readonly internal: { username: string; password: string };
}
