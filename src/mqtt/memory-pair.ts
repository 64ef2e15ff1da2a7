// Two connected in-memory streams: what one end writes, the other reads. The service's own
// client talks to the embedded broker over a pair instead of a loopback TCP socket, so a
// publish reaches the broker, and through it the subscribers' sockets, in the same event-loop
// turn: under HTTP load every turn can be long, and each hop through the kernel waited for one.
//
// One written chunk is handed over at a time: the next is pushed once the reader has taken the
// last. A reader that takes all it has at once (aedes does, once per 'readable') would otherwise
// get everything written in a turn joined into one new buffer: the state message (150 KB),
// copied every 5 s, and kept for the whole cycle as the retained message's payload is a slice of
// it. One at a time, the payload arrives as the buffer the service wrote, and is kept as it is.
import { Duplex } from 'node:stream';

class End extends Duplex {
  other!: End;
  /** The write whose chunk the other end has not taken yet. */
  private unread: (() => void) | null = null;

  override _read(): void {
    // Called when this end's reader wants more: the other end's last chunk was taken. Released
    // after the read returns, so the next chunk is not pushed into (and joined with) this read.
    const done = this.other.unread;
    this.other.unread = null;
    if (done) queueMicrotask(done);
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.unread = done;
    this.other.push(chunk);
  }

  override _final(done: (err?: Error | null) => void): void {
    this.other.push(null);
    done();
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    // Both ends go together; a write still waiting on the other end has nowhere to go.
    this.unread = null;
    if (!this.other.destroyed) this.other.destroy();
    done(err);
  }
}

export function memoryPair(): [Duplex, Duplex] {
  const a = new End();
  const b = new End();
  a.other = b;
  b.other = a;
  return [a, b];
}
