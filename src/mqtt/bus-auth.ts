// What the MQTT side needs from authentication (implemented by src/auth): the embedded broker's
// CONNECT check, the /eventbus upgrade check, and the service's own client credentials.
import type { IncomingMessage } from 'node:http';
import type { Role } from '../shared/roles.js';

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

/**
 * Who an admitted MQTT connection belongs to: a user (its role decides what it may do,
 * src/mqtt/acl.ts), the service's own client, or anyone (auth off).
 */
export type MqttIdentity = { user: string } | { internal: true } | { anonymous: true };

export interface BusAuth {
  readonly enabled: boolean;
  /** The connection's identity when it may connect, else null. */
  allowMqtt(username: string | undefined, password: Buffer | undefined, peer: MqttPeer): Promise<MqttIdentity | null>;
  /** A user's role now (null: no such user any more). */
  roleOf(user: string): Role | null;
  readonly internal: { username: string; password: string };
}
