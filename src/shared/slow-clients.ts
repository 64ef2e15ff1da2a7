// Bounded per client (DESIGN §11): a stream the service writes to a client (the /events stream,
// the history stream websocket, the /eventbus websocket, an MQTT subscriber of the embedded broker)
// may hold a limited number of bytes the client has not taken yet. The check comes before each
// write, so one message larger than the limit still goes to a client that keeps up; a client
// that stopped reading is closed at its next message, with the reason, and counted.

export class SlowClients {
  private count = 0;

  constructor(
    /** The most bytes that may wait for one client. */
    readonly maxBytes: number,
    /** Told of every client closed, with the reason (log it, limited). */
    private readonly onClosed: (reason: string) => void = () => {},
  ) {}

  /** Closed so far. */
  get closed(): number {
    return this.count;
  }

  /** Null while `queued` bytes are within the limit; past it, the reason to close the client (counted and reported). */
  check(queued: number): string | null {
    if (queued <= this.maxBytes) return null;
    this.count++;
    const reason = `closed: ${queued} bytes waited for the client to read them, over the ${this.maxBytes}-byte limit`;
    this.onClosed(reason);
    return reason;
  }
}

/** How long a closed client gets to take its close message (a websocket close frame, a last event) before its connection is cut. */
export const CLOSE_GRACE_MS = 1000;
