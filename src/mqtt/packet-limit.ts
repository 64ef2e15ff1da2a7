// Maximum MQTT packet sizes, enforced on the bytes as they are read. mqtt-packet's parser (used by
// aedes and by mqtt.js) buffers a packet whole, whatever length its header announces, so a size
// check after the parse comes too late: a peer's 20 MB retained message was read, buffered and
// parsed by every controller subscribed to its topic. Here the fixed header of every packet (type
// byte + remaining-length varint) is decoded as it arrives, before the body is read:
// - the embedded broker (`limitPacketSize`) closes a client connection announcing a packet over
//   the limit, before the body is buffered;
// - the service's own client (`InboundLimit`, between the socket and mqtt.js) skips a PUBLISH over
//   the limit as its bytes pass, so it never reaches the parser (the service subscribes with QoS
//   0: there is nothing to acknowledge), and reports its topic; any other packet over the limit
//   ends the connection.
import { Duplex } from 'node:stream';

const PUBLISH = 3;
/** The first body bytes of a skipped PUBLISH kept to name its topic: the length prefix and up to 256 bytes. */
const TOPIC_PREFIX_BYTES = 2 + 256;

export interface PacketHeader {
  /** The MQTT packet type (3 = PUBLISH). */
  type: number;
  /** The whole packet's size: the type byte, the remaining-length bytes and the remaining length. */
  total: number;
}

type Verdict = 'keep' | 'skip' | 'stop';

/**
 * Walks MQTT packets across chunks, asking `decide` about each as soon as its fixed header is
 * complete. `feed` returns the bytes of the kept packets (slices of the chunk where it can); a
 * header is held back until it is complete, so a skipped packet goes with its header.
 */
export class PacketWalker {
  private mode: 'header' | Verdict | 'through' = 'header';
  private header: number[] = [];
  private remaining = 0;
  private skipped: { header: PacketHeader; prefix: Buffer[]; bytes: number } | null = null;
  /** The header that was refused ('stop'), once it is. */
  refused: PacketHeader | null = null;

  /** The bytes stopped looking like MQTT (a fifth length byte): from then on they pass unwalked. */
  get lost(): boolean {
    return this.mode === 'through';
  }

  constructor(
    private readonly decide: (h: PacketHeader) => Verdict,
    private readonly onSkipped: (h: PacketHeader, topic: string) => void = () => {},
  ) {}

  feed(chunk: Buffer): Buffer[] {
    if (this.mode === 'through') return [chunk];
    if (this.mode === 'stop') return [];
    const out: Buffer[] = [];
    let run = this.mode === 'keep' ? 0 : -1; // start of the kept bytes not yet handed out
    let headerStart = -1; // where the current header began in this chunk (-1: in an earlier one)
    let i = 0;
    while (i < chunk.length) {
      if (this.mode === 'header') {
        if (this.header.length === 0) headerStart = i;
        const byte = chunk[i++]!;
        this.header.push(byte);
        if (this.header.length === 1 || byte & 0x80) {
          if (this.header.length < 5) continue;
          // A fifth length byte: not MQTT. The parser behind says so; stop walking.
          this.mode = 'through';
          if (headerStart >= 0) out.push(chunk.subarray(run >= 0 ? run : headerStart));
          else out.push(Buffer.from(this.header), chunk.subarray(i));
          return out;
        }
        let length = 0;
        for (let k = this.header.length - 1; k >= 1; k--) length = length * 128 + (this.header[k]! & 0x7f);
        const h = { type: this.header[0]! >> 4, total: this.header.length + length };
        const verdict = this.decide(h);
        if (verdict === 'keep') {
          if (headerStart < 0) {
            out.push(Buffer.from(this.header));
            run = i;
          } else if (run < 0) run = headerStart;
        } else {
          if (run >= 0) out.push(chunk.subarray(run, headerStart));
          run = -1;
          if (verdict === 'stop') {
            this.mode = 'stop';
            this.refused = h;
            return out;
          }
          this.skipped = { header: h, prefix: [], bytes: 0 };
        }
        this.header = [];
        headerStart = -1;
        this.remaining = length;
        this.mode = verdict;
        if (length === 0) this.endPacket();
      } else {
        const n = Math.min(this.remaining, chunk.length - i);
        if (this.mode === 'skip') this.keepPrefix(chunk.subarray(i, i + n));
        i += n;
        this.remaining -= n;
        if (this.remaining === 0) this.endPacket();
      }
    }
    // A header cut by the chunk's end is held back (it is handed out with its packet, if kept).
    if (run >= 0) out.push(chunk.subarray(run, this.header.length && headerStart >= 0 ? headerStart : chunk.length));
    return out;
  }

  private keepPrefix(part: Buffer): void {
    const s = this.skipped!;
    if (s.bytes >= TOPIC_PREFIX_BYTES) return;
    const kept = part.subarray(0, TOPIC_PREFIX_BYTES - s.bytes);
    s.prefix.push(Buffer.from(kept));
    s.bytes += kept.length;
  }

  private endPacket(): void {
    if (this.mode === 'skip') {
      const s = this.skipped!;
      this.skipped = null;
      this.onSkipped(s.header, s.header.type === PUBLISH ? publishTopic(Buffer.concat(s.prefix)) : '');
    }
    this.mode = 'header';
  }
}

/** The topic at the start of a PUBLISH body, from its first bytes (cut to what they hold). */
export function publishTopic(prefix: Buffer): string {
  if (prefix.length < 2) return '';
  return prefix.subarray(2, 2 + prefix.readUInt16BE(0)).toString('utf8');
}

/** Watch `stream` (once the broker reads it) and destroy it when a packet is longer than `maxBytes`. */
export function limitPacketSize(stream: Duplex, maxBytes: number, onTooLarge: (bytes: number) => void): void {
  const walker = new PacketWalker((h) => (h.total > maxBytes ? 'stop' : 'keep'));
  const onData = (chunk: Buffer) => {
    walker.feed(chunk);
    if (!walker.refused) return;
    stream.off('data', onData);
    onTooLarge(walker.refused.total);
    stream.destroy();
  };
  stream.on('data', onData);
}

/**
 * A client's connection with the incoming packets limited to `maxBytes`: a PUBLISH over it is
 * skipped (`onSkipped` names its topic and size), any other packet over it ends the connection
 * with an error. Writes go straight through; the wrapper holds a write until the connection takes
 * more, so its `writableLength` tells, as a socket's does, that bytes are waiting.
 */
export class InboundLimit extends Duplex {
  private readonly walker: PacketWalker;

  constructor(
    private readonly inner: Duplex,
    maxBytes: number,
    onSkipped: (topic: string, bytes: number) => void,
  ) {
    super({ allowHalfOpen: false });
    this.walker = new PacketWalker(
      (h) => (h.total <= maxBytes ? 'keep' : h.type === PUBLISH ? 'skip' : 'stop'),
      (h, topic) => onSkipped(topic, h.total),
    );
    inner.on('data', (chunk: Buffer) => {
      const parts = this.walker.feed(chunk);
      for (const part of parts) if (!this.push(part)) inner.pause();
      const refused = this.walker.refused;
      if (refused)
        this.destroy(
          Object.assign(
            new Error(
              `the broker sent a ${refused.total}-byte packet (type ${refused.type}); the limit is ${maxBytes}`,
            ),
            { code: 'EMSGSIZE' },
          ),
        );
    });
    inner.once('end', () => this.push(null));
    inner.once('error', (err) => this.destroy(err));
    inner.once('close', () => this.destroy());
  }

  override _read(): void {
    this.inner.resume();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.whenTaken(this.inner.write(chunk), done);
  }

  /** A packet mqtt.js wrote in parts (it corks the stream) goes on as one write, as it would to a socket: in parts, Nagle's algorithm held all but the first until the peer's delayed ACK (40 ms). */
  override _writev(chunks: Array<{ chunk: Buffer }>, done: (err?: Error | null) => void): void {
    this.inner.cork();
    let taken = true;
    for (const { chunk } of chunks) taken = this.inner.write(chunk);
    this.inner.uncork();
    this.whenTaken(taken, done);
  }

  private whenTaken(taken: boolean, done: (err?: Error | null) => void): void {
    if (taken) return done();
    const drained = () => {
      this.inner.off('close', drained);
      this.inner.off('drain', drained);
      done();
    };
    this.inner.once('drain', drained);
    this.inner.once('close', drained);
  }

  override _final(done: (err?: Error | null) => void): void {
    this.inner.end(done);
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    if (!this.inner.destroyed) this.inner.destroy();
    done(err);
  }

  /** A TCP reset where the connection is a socket (liveness.ts ends a hung broker's this way). */
  resetAndDestroy(): void {
    const inner = this.inner as Duplex & { resetAndDestroy?: () => void };
    if (typeof inner.resetAndDestroy === 'function') inner.resetAndDestroy();
    else this.destroy();
  }
}
