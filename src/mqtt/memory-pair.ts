// Two connected in-memory streams: what one end writes, the other reads. The service's own
// client talks to the embedded broker over a pair instead of a loopback TCP socket, so a
// publish reaches the broker, and through it the subscribers' sockets, in the same event-loop
// turn: under HTTP load every turn can be long, and each hop through the kernel waited for one.
import { Duplex } from 'node:stream';

class End extends Duplex {
  other!: End;

  override _read(): void {}

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.other.push(chunk);
    done();
  }

  override _final(done: (err?: Error | null) => void): void {
    this.other.push(null);
    done();
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
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
