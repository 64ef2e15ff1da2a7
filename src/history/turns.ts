// At most a few holders at once, the others waiting in line: the queries of a history store. The
// embedded store decodes in slices and gives up the event loop between them, so without a limit
// every query a client sends at once would hold its decoded points at the same time (on a Pi's
// memory); VictoriaMetrics gets one connection per field of a query.

/** The line is full: the query is refused (a 503 naming it) instead of waiting. */
export class TurnsFull extends Error {}

export class Turns {
  private held = 0;
  private readonly line: Array<() => void> = [];

  constructor(
    private readonly limit: number,
    /** Longest line; a query beyond it is refused (TurnsFull). */
    private readonly maxWaiting = Number.POSITIVE_INFINITY,
    private readonly what = 'queries',
  ) {}

  /** Waits for a turn; `signal` ends the wait (its reason is thrown). Every take needs a release. */
  async take(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.held < this.limit) {
      this.held++;
      return;
    }
    if (this.line.length >= this.maxWaiting)
      throw new TurnsFull(
        `too many history ${this.what} at once (${this.held} running, ${this.line.length} waiting): try again shortly`,
      );
    await new Promise<void>((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener('abort', abort);
        resolve();
      };
      const abort = () => {
        this.line.splice(this.line.indexOf(go), 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', abort, { once: true });
      this.line.push(go);
    });
  }

  /** The turn goes to the next in line (the count stays), or is given back. */
  release(): void {
    const next = this.line.shift();
    if (next) next();
    else this.held--;
  }

  /** `work` within a turn; `signal` (the client went away) ends the wait, and `work` is then not done. */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.take(signal);
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  /**
   * Each item of `items` is made within a turn of its own: a slow consumer holds none between them.
   * `signal` as for run: an item still waiting for its turn is not made, and the iteration ends.
   */
  async *each<T>(items: AsyncIterable<T>, signal?: AbortSignal): AsyncGenerator<T> {
    const it = items[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await this.run(() => it.next(), signal);
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await it.return?.();
    }
  }
}
