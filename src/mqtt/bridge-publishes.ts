// The write rule (src/shared/roles.ts) on the /eventbus bridge to an external broker. The bridge is
// a byte pipe, and the broker sees every bridged connection come from the controller's address: a
// broker that lets local clients in without a password (as Brewblox's does) would take a viewer's
// publishes as anyone's. So the client's packets are walked as they pass (packet-limit.ts), and a
// PUBLISH by a user who may not write (the role now, not at login) is dropped before the broker
// sees it, as the embedded broker drops it. A dropped QoS 1 or 2 publish is not acknowledged: the
// bridge never writes packets of its own into the broker's stream to the client.
import { Transform } from 'node:stream';
import { mayWrite, type Role } from '../shared/roles.js';
import { PacketWalker } from './packet-limit.js';

const PUBLISH = 3;

export interface BridgeWriter {
  /** The user the upgrade was let in as. */
  user: string;
  /** The user's role now (null: removed). */
  roleOf: (user: string) => Role | null;
  /** A publish was dropped: its topic and why. */
  onRefused: (topic: string, why: string) => void;
}

/** Why `user` may not publish now, or null when it may. */
function refusal(w: BridgeWriter): string | null {
  const role = w.roleOf(w.user);
  if (role === null) return 'the user no longer exists';
  return mayWrite(role) ? null : `a ${role} may not publish`;
}

/**
 * The client-to-broker half of a bridged connection, less the publishes `writer` may not make.
 * Bytes that are not MQTT end it: past them no packet can be told from the next.
 */
export function withoutRefusedPublishes(writer: BridgeWriter): Transform {
  let why: string | null = null;
  const walker = new PacketWalker(
    (h) => (h.type === PUBLISH && (why = refusal(writer)) ? 'skip' : 'keep'),
    (_h, topic) => writer.onRefused(topic, why ?? ''),
  );
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      const parts = walker.feed(chunk);
      if (walker.lost) return done(new Error('the client sent bytes that are not MQTT'));
      for (const part of parts) this.push(part);
      done();
    },
  });
}
