// Answers a client stops taking (ANSWER_STALL_MS, timeouts.ts). Node waits for ever on a client
// that keeps its connection open and reads nothing: the answer (and for a history CSV, the
// slice of points it is being made from) stays in memory until the client goes, and the keep-alive timer only
// starts once an answer is out. From the moment an answer is handed to the socket until it is
// out, the socket's idle timer looks at the bytes still waiting for the kernel LOOKS times per
// limit; an answer cut is one whose queue did not move, with bytes in it, for LOOKS looks in a
// row (pauses of a slow source, with nothing waiting, do not add up to a cut). A slow client
// that still reads (over TLS too) moves it and is not cut. Looking once per limit let a queue
// that moved only in the first instant (the first write) pass one whole limit, and Node's own
// pass for a write under way another: a stalled answer was cut after three times the limit.
// Streams with their own byte cap (the event stream, websockets) take over their socket and are
// not affected.
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../log.js';
import { WarningLimiter } from '../log/limit.js';
import { ANSWER_STALL_MS } from './timeouts.js';

/** Looks at the queue per stall limit: a stall is cut after some one and a quarter limits. */
const LOOKS = 8;

export class StalledAnswers {
  private count = 0;
  private readonly warnings: WarningLimiter;

  constructor(
    log: Logger,
    private readonly stallMs = ANSWER_STALL_MS,
  ) {
    this.warnings = new WarningLimiter(log);
  }

  /** Answers cut so far. */
  get cut(): number {
    return this.count;
  }

  /** Watch every answer of `app` (both ports: the gateway hands its requests to the same app). */
  install(app: FastifyInstance): void {
    app.addHook('onSend', (req, reply, payload, done) => {
      const socket = req.raw.socket;
      const res = reply.raw;
      // inject() answers on a stand-in with no timer (and nothing to cut).
      if (typeof socket?.setTimeout !== 'function' || socket.destroyed) return done(null, payload);
      // Bytes the kernel has not taken yet, where they wait for it: on the TCP socket under a
      // TLS one (the gateway). A TLS write of a large answer completes only when all of it is
      // out, so the TLS socket's own queue does not move while a slow client reads it.
      const queued = () => transport(socket)?.writeQueueSize;
      const look = Math.max(1, Math.round(this.stallMs / LOOKS));
      let last = queued();
      let quiet = 0;
      const stalled = () => {
        if (res.writableFinished) return;
        const now = queued();
        if (typeof now === 'number' && (now !== last || now === 0)) {
          // The kernel took some since the last look (or a new write began), or nothing waits for
          // it (a streamed answer's source is the slow one, between its pieces): the client reads.
          last = now;
          quiet = 0;
        } else quiet++;
        if (quiet < LOOKS) {
          socket.setTimeout(look);
          return;
        }
        this.count++;
        this.warnings.warn(
          'stalled',
          { method: req.method, url: req.routeOptions.url, remote: socket.remoteAddress },
          `http: cut an answer to ${req.method} ${req.routeOptions.url ?? '(no route)'}: the client took nothing of it for ${this.stallMs / 1000} s`,
        );
        socket.destroy();
      };
      socket.setTimeout(look);
      // Node's server hears the socket's timeout first and destroys it unless the answer listens:
      // this listener decides (a client still reading is not cut).
      res.on('timeout', stalled);
      res.once('close', () => {
        res.off('timeout', stalled);
        // Node's keep-alive timer replaces this one when the answer is out; a connection with no
        // keep-alive timer (another request waiting) gets no idle limit, as before.
        if (!socket.destroyed && socket.timeout === look) socket.setTimeout(0);
      });
      done(null, payload);
    });
  }
}

/** The socket's handle where bytes wait for the kernel: the TCP one under a TLS socket. */
function transport(socket: object): { writeQueueSize?: number } | undefined {
  const s = socket as { _parent?: { _handle?: { writeQueueSize?: number } }; _handle?: { writeQueueSize?: number } };
  return s._parent?._handle ?? s._handle ?? undefined;
}
