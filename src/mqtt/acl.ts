// The embedded broker's access rules (issue 45.8), the ones docs/fleet/mosquitto.acl gives an
// external broker: the controller's own output topics (state, patches, presence, history, alerts,
// Home Assistant discovery and states) are written by the service alone (datastore events are
// not: another datastore, as Brewblox's, announces its changes there); `$SYS` is read by admins only; a viewer publishes nothing (the one write rule, src/shared/roles.ts).
// One write of a client lands there: an empty message on a discovery config, which is how Home
// Assistant deletes the device (src/homeassistant/discovery.ts hears it and stops announcing it).
// A refused publish is dropped as Mosquitto drops a publish its ACL denies (a QoS 1 one is still
// acknowledged): aedes would close the connection on a refusal, so the packet is sent to a topic
// no one can subscribe to, not retained. A refused subscription gets the failure code 0x80.
import { mayWrite, type Role } from '../shared/roles.js';
import { nodeId } from '../shared/service-id.js';
import type { MqttIdentity } from './bus-auth.js';
import { topicMatches } from './topics.js';

/** Where refused publishes go: a `$` topic, which `#` does not match and nobody may subscribe to. */
export const REFUSED_TOPIC = '$refused';

export type Refusal = { refused: string };

export interface AclOptions {
  topicRoot: string;
  serviceId: string;
  /** A user's role now (null: the user is gone). */
  roleOf: (user: string) => Role | null;
}

export class BrokerAcl {
  /** Topic filters only the service writes. */
  readonly own: string[];
  /** Within those, what clients may write: Home Assistant's commands. */
  private readonly clientWritable: string[];
  /** Within those, what clients may clear (an empty message): the discovery configs, which Home Assistant clears when its user deletes the device. */
  private readonly clientClearable: string[];

  constructor(private readonly o: AclOptions) {
    const r = o.topicRoot;
    const id = o.serviceId;
    this.own = [
      `${r}/state/${id}`,
      `${r}/state/${id}/patch`,
      `${r}/fleet/${id}`,
      `${r}/history/${id}`,
      `${r}/alerts/${id}`,
      `${r}/alerts/${id}/ha`,
      `${r}/ha/${id}/#`,
      `homeassistant/+/${nodeId(id)}/#`,
    ];
    this.clientWritable = [`${r}/ha/${id}/+/set/+`];
    this.clientClearable = [`homeassistant/+/${nodeId(id)}/+/config`];
  }

  private role(who: MqttIdentity): Role | null {
    if ('user' in who) return this.o.roleOf(who.user);
    return 'admin'; // the service itself, or anyone with auth off
  }

  /** Null when `who` may publish `bytes` bytes on `topic`; else why not. */
  publish(who: MqttIdentity, topic: string, bytes: number): string | null {
    if ('internal' in who) return null;
    const role = this.role(who);
    if (role === null) return 'the user no longer exists';
    if (!mayWrite(role)) return `a ${role} may not publish`;
    const allowed = bytes === 0 ? [...this.clientWritable, ...this.clientClearable] : this.clientWritable;
    if (this.own.some((f) => topicMatches(f, topic)) && !allowed.some((f) => topicMatches(f, topic)))
      return `${topic} is written by the controller ${this.o.serviceId} alone`;
    return null;
  }

  /** True for a command topic (Home Assistant's `set`), read when sent: never kept retained (retained.ts). */
  isCommand(topic: string): boolean {
    return this.clientWritable.some((f) => topicMatches(f, topic));
  }

  /** Null when `who` may subscribe to `filter` (and, for a `$` topic, still read it: broker.ts); else why not. */
  subscribe(who: MqttIdentity, filter: string): string | null {
    if (filter.startsWith(REFUSED_TOPIC)) return 'refused publishes are read by nobody';
    if (!filter.startsWith('$SYS')) return null;
    const role = this.role(who);
    return role === 'admin' ? null : `$SYS is for admins, not a ${role ?? 'removed user'}`;
  }
}
