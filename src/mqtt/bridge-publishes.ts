// The write rule (src/shared/roles.ts) on the /eventbus bridge to an external broker. The bridge is
// a byte pipe, and the broker sees every bridged connection come from the controller's address: a
// broker that lets local clients in without a password (as Brewblox's does) would take a viewer's
// publishes as anyone's. So the client's packets are walked as they pass (packet-limit.ts), and
// what a user who may not write asks the broker to publish goes no further: a PUBLISH (by the role
// now, not at login) is dropped, as the embedded broker drops it; a last will in the CONNECT (a
// publish the broker would make for the client once it is gone) is taken out of it. A dropped
// QoS 1 or 2 publish is not acknowledged: the bridge never writes packets of its own to the client.
// A will left by a client that was an admin when it connected stays with the broker.
import mqttPacket from 'mqtt-packet';
import { Transform } from 'node:stream';
import { MAX_PACKET_BYTES } from '../shared/limits.js';
import { mayWrite, type Role } from '../shared/roles.js';
import { PacketWalker } from './packet-limit.js';

const CONNECT = 1;
const PUBLISH = 3;

export interface BridgeWriter {
  /** The user the upgrade was let in as. */
  user: string;
  /** The user's role now (null: removed). */
  roleOf: (user: string) => Role | null;
  /** A publish was dropped (a will: `will` true): its topic and why. */
  onRefused: (topic: string, why: string, will?: boolean) => void;
}

/** Why `user` may not publish now, or null when it may. */
function refusal(w: BridgeWriter): string | null {
  const role = w.roleOf(w.user);
  if (role === null) return 'the user no longer exists';
  return mayWrite(role) ? null : `a ${role} may not publish`;
}

/** The whole size of the packet at the start of `bytes`, null until its header is complete, -1 for a header that is not MQTT. */
function packetSize(bytes: Buffer): number | null {
  let length = 0;
  for (let i = 1; i < 5; i++) {
    if (i >= bytes.length) return null;
    length += (bytes[i]! & 0x7f) * 128 ** (i - 1);
    if (!(bytes[i]! & 0x80)) return i + 1 + length;
  }
  return -1;
}

/** The CONNECT without its will when `writer` may not publish; as it came otherwise; an Error when it cannot be made again. */
function connectFor(bytes: Buffer, writer: BridgeWriter): Buffer | Error {
  const why = refusal(writer);
  if (!why) return bytes;
  let packet: mqttPacket.IConnectPacket | null = null;
  const parser = mqttPacket.parser();
  parser.on('packet', (p) => (packet = p as mqttPacket.IConnectPacket));
  parser.on('error', () => undefined); // the broker refuses a CONNECT that does not parse
  parser.parse(bytes);
  const will = (packet as mqttPacket.IConnectPacket | null)?.will;
  if (!packet || !will) return bytes;
  writer.onRefused(will.topic, why, true);
  const { will: _will, ...rest } = packet as mqttPacket.IConnectPacket;
  try {
    // The parser takes CONNECTs the generator refuses (a password without a user name, ...).
    return mqttPacket.generate(rest, { protocolVersion: rest.protocolVersion });
  } catch (e) {
    return new Error(`the client's CONNECT cannot be passed on without its will: ${(e as Error).message}`);
  }
}

/**
 * The client-to-broker half of a bridged connection, less what `writer` may not publish.
 * Bytes that are not MQTT end it: past them no packet can be told from the next.
 */
export function withoutRefusedPublishes(writer: BridgeWriter): Transform {
  let why: string | null = null;
  const walker = new PacketWalker(
    (h) => (h.type === PUBLISH && (why = refusal(writer)) ? 'skip' : 'keep'),
    (_h, topic) => writer.onRefused(topic, why ?? ''),
  );
  const notMqtt = () => new Error('the client sent bytes that are not MQTT');
  /** The first packet (the CONNECT) as it arrives, until it is whole. */
  let first: Buffer | null = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      // Nothing a client sends may throw out of here: a stream's throw is the process's.
      try {
        if (first) {
          first = Buffer.concat([first, chunk]);
          const size = packetSize(first);
          if (size === -1) return done(notMqtt());
          if (size !== null && size > MAX_PACKET_BYTES)
            return done(new Error(`the client's CONNECT is ${size} bytes, over the ${MAX_PACKET_BYTES}-byte limit`));
          if (size === null || first.length < size) return done();
          chunk = first;
          first = null;
          // Anything else first is walked like the rest (the broker refuses it anyway).
          if (chunk[0]! >> 4 === CONNECT) {
            const connect = connectFor(chunk.subarray(0, size), writer);
            if (connect instanceof Error) return done(connect);
            this.push(connect);
            chunk = chunk.subarray(size);
          }
        }
        const parts = walker.feed(chunk);
        if (walker.lost) return done(notMqtt());
        for (const part of parts) this.push(part);
        done();
      } catch (e) {
        done(e instanceof Error ? e : new Error(String(e)));
      }
    },
  });
}
