// A virtual clock for the built service under the soak harness (`node --import` this file
// before dist/src/main.js). Every JavaScript clock and timer of the process (Date,
// performance.now, process.hrtime, setTimeout, setInterval) runs on simulated time, which the
// driver below moves from one due timer to the next, letting promises and I/O run between
// them. So a simulated day takes only the CPU the service needs for it, and time never moves
// while the service is busy: a loaded machine makes the run slower, never the service late (a
// clock merely sped up, like libfaketime's rate, turns every stall of the machine into seconds
// of lateness: sensors going stale, alerts that a Pi would never send).
//
// Real I/O still takes real time. What the service asks of another process over TCP (the
// broker's answer to a PINGREQ, a webhook's reply) holds simulated time until the answer
// comes (at most HOLD_MS real): a broker that answers in 20 ms real must not look silent for
// 40 simulated seconds. For the rest (the harness's requests, the disk) simulated time is kept
// under `rate` times real time.
//
// Controlled by the environment at start and by a JSON file the harness rewrites while it runs:
//   SOAK_CLOCK_START   wall time to start at (epoch ms)
//   SOAK_CLOCK_FILE    {"rate": 1000, "jumpBy": null|ms, "seq": n}: the rate ceiling, and a move
//                      of the wall clock (a clock jump: the wall clock moves, the monotonic clock
//                      and every timer keep their time, as when NTP steps a Pi's clock); a jump
//                      is applied once per seq.
// After SIGTERM the clock runs at real speed: a stop is real I/O (sockets, the database) and
// must not look like minutes to the service's own shutdown limit.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import FakeTimers from '@sinonjs/fake-timers';

const realNow = performance.now.bind(performance);
const realImmediate = setImmediate;
const realTimeout = setTimeout;

interface Control {
  rate: number;
  jumpBy: number | null;
  seq: number;
}

const start = Number(process.env.SOAK_CLOCK_START ?? Date.now());
const file = process.env.SOAK_CLOCK_FILE;
let control: Control = { rate: 1, jumpBy: null, seq: 0 };
let controlMtime = 0;
let appliedSeq = -1;

const clock = FakeTimers.install({
  now: start,
  toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance', 'hrtime'],
  loopLimit: 100_000,
});

/** Simulated monotonic ms (unmoved by wall-clock jumps). */
const monotonic = () => clock.performance.now() as number;

function readControl(): void {
  if (!file) return;
  try {
    const mtime = statSync(file).mtimeMs;
    if (mtime === controlMtime) return;
    controlMtime = mtime;
    const raw = JSON.parse(readFileSync(file, 'utf8')) as Partial<Control>;
    control = {
      rate: typeof raw.rate === 'number' && raw.rate > 0 ? raw.rate : control.rate,
      jumpBy: typeof raw.jumpBy === 'number' ? raw.jumpBy : null,
      seq: typeof raw.seq === 'number' ? raw.seq : 0,
    };
    rebase();
    if (control.jumpBy !== null && control.seq !== appliedSeq) {
      appliedSeq = control.seq;
      clock.setSystemTime(clock.now + control.jumpBy);
      // That it was applied, for the harness (which cannot see into the process).
      writeFileSync(`${file}.applied`, JSON.stringify({ seq: appliedSeq, wall: clock.now }));
    }
  } catch {
    // a file being rewritten: read again on the next check
  }
}

/** The rate ceiling counts from here: a rate change does not let time catch up on the past. */
let realBase = realNow();
let simBase = 0;
function rebase(): void {
  realBase = realNow();
  simBase = monotonic();
}

let stopping = false;
process.once('SIGTERM', () => {
  stopping = true;
  control = { ...control, rate: 1 };
  rebase();
});

/** The longest simulated time waits for an answer over TCP, in real ms. */
const HOLD_MS = 250;
/** Sockets this process opened that wrote and have not heard back since: when the first write went (real ms). */
const awaiting = new Map<net.Socket, number>();
type Write = typeof net.Socket.prototype.write;
const socketWrite = net.Socket.prototype.write;
net.Socket.prototype.write = function (this: net.Socket & { server?: unknown }, ...args: Parameters<Write>) {
  if (!this.server && !awaiting.has(this)) awaiting.set(this, realNow());
  return socketWrite.apply(this, args);
} as Write;
const socketPush = net.Socket.prototype.push;
net.Socket.prototype.push = function (this: net.Socket, ...args: Parameters<typeof socketPush>) {
  awaiting.delete(this);
  return socketPush.apply(this, args);
};

function holding(): boolean {
  const now = realNow();
  for (const [socket, since] of awaiting) {
    if (socket.destroyed || now - since > HOLD_MS) awaiting.delete(socket);
    else return true;
  }
  return false;
}

let lastControlCheck = 0;
/** fake-timers' own queue of timers, ordered by due time (typed as internal there). */
const internals = clock as unknown as { timerHeap?: { peek(): { callAt: number } | undefined } };

/** Runs the timers due within `ms`; a throwing timer is an uncaught exception, as it would be without this file. */
function advance(ms: number): void {
  try {
    clock.tick(ms);
  } catch (e) {
    realImmediate(() => {
      throw e;
    });
  }
}

const stats = { ticks: 0, sleeps: 0, sleptMs: 0, tickMs: 0, yieldMs: 0 };
if (process.env.SOAK_CLOCK_DEBUG) {
  setInterval(() => process.stderr.write(`virtual-clock ${JSON.stringify(stats)}\n`), 5000);
}

async function drive(): Promise<never> {
  rebase();
  for (;;) {
    const now = realNow();
    if (!stopping && now - lastControlCheck >= 50) {
      lastControlCheck = now;
      readControl();
    }
    if (holding()) {
      await new Promise((r) => realTimeout(r, 0));
      continue;
    }
    const allowed = simBase + (realNow() - realBase) * control.rate - monotonic();
    const due = internals.timerHeap?.peek()?.callAt;
    const toNext = due === undefined ? Number.POSITIVE_INFINITY : Math.max(0, due - clock.now);
    if (toNext <= allowed) {
      const t0 = realNow();
      advance(toNext);
      const t1 = realNow();
      await new Promise((r) => realImmediate(r));
      stats.ticks++;
      stats.tickMs += t1 - t0;
      stats.yieldMs += realNow() - t1;
    } else {
      if (allowed >= 1) advance(Math.floor(allowed));
      const t0 = realNow();
      await new Promise((r) => realTimeout(r, 1));
      stats.sleeps++;
      stats.sleptMs += realNow() - t0;
    }
  }
}

void drive();
