// sd_notify for systemd Type=notify services, in plain Node.
//
// The protocol is one AF_UNIX datagram to $NOTIFY_SOCKET. Node cannot send those (dgram is
// UDP only, net is stream only, and a stream connect to a datagram socket fails), so the
// messages go through `systemd-notify`, which ships with systemd itself, as a child process.
// Consequences, checked against a real notify socket (test/deploy/notify.test.ts):
// - The datagram carries systemd-notify's own PID (only root may claim its parent's), so the
//   unit needs NotifyAccess=all; with NotifyAccess=main systemd would drop every message.
// - systemd-notify waits (since systemd 246) until the manager has processed the message
//   (BARRIER=1), so it cannot exit before systemd attributes its PID to our cgroup.
// The alternatives were a native addon (sd-notify/unix-dgram: a compiler and libsystemd-dev
// on the Pi) or an exec wrapper handing Node a pre-connected socket (an extra interpreter in
// ExecStart); both cost more than NotifyAccess=all, which only lets our own children talk.
//
// Every call is a no-op resolving to false when NOTIFY_SOCKET is unset, and never throws.

export interface NotifyOptions {
  /** Environment to read NOTIFY_SOCKET from and pass on; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The systemd-notify executable; default "systemd-notify" from PATH. */
  command?: string;
  /** Give up on one message after this long (systemd-notify's own barrier wait is 5 s). */
  timeoutMs?: number;
}

export type NotifyErrorHandler = (message: string) => void;

let onError: NotifyErrorHandler = () => {};

/** Where failures to notify are reported (e.g. the logger); default: ignored. */
export function setNotifyErrorHandler(handler: NotifyErrorHandler): void {
  onError = handler;
}

function clean(value: string): string {
  return value.replace(/[\r\n]+/g, ' ');
}

/** Sends `KEY=value` assignments; resolves true once systemd-notify reported success. */
export async function sdNotify(
  assignments: Record<string, string | number>,
  options: NotifyOptions = {},
): Promise<boolean> {
  const env = options.env ?? process.env;
  if (!env.NOTIFY_SOCKET) return false;
  // Loaded only under systemd: child_process costs a start outside it for nothing.
  const { spawn } = await import('node:child_process');
  const args = Object.entries(assignments).map(([key, value]) => `${key}=${clean(String(value))}`);
  const command = options.command ?? 'systemd-notify';
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve) => {
    let settled = false;
    let stderr = '';
    const finish = (ok: boolean, problem?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (problem) onError(`sd_notify ${args.join(' ')}: ${problem}`);
      resolve(ok);
    };
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(false, `${command} did not finish within ${timeoutMs} ms`);
    }, timeoutMs);
    timer.unref();
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 1000) stderr += chunk;
    });
    child.on('error', (err) => finish(false, `cannot run ${command}: ${err.message}`));
    child.on('close', (code) =>
      code === 0 ? finish(true) : finish(false, `${command} exited with ${code}: ${stderr.trim() || 'no message'}`),
    );
  });
}

export function notifyReady(status?: string, options?: NotifyOptions): Promise<boolean> {
  return sdNotify(status === undefined ? { READY: 1 } : { READY: 1, STATUS: status }, options);
}

export function notifyWatchdog(options?: NotifyOptions): Promise<boolean> {
  return sdNotify({ WATCHDOG: 1 }, options);
}

export function notifyStopping(options?: NotifyOptions): Promise<boolean> {
  return sdNotify({ STOPPING: 1 }, options);
}

export function notifyStatus(status: string, options?: NotifyOptions): Promise<boolean> {
  return sdNotify({ STATUS: status }, options);
}

/**
 * The WatchdogSec= of the unit in ms, or 0 when the watchdog is off, not ours (WATCHDOG_PID
 * names another process) or NOTIFY_SOCKET is unset. Ping at half this interval.
 */
export function watchdogIntervalMs(env: NodeJS.ProcessEnv = process.env, pid: number = process.pid): number {
  if (!env.NOTIFY_SOCKET) return 0;
  const usec = env.WATCHDOG_USEC;
  if (!usec || !/^\d+$/.test(usec)) return 0;
  const owner = env.WATCHDOG_PID;
  if (owner !== undefined && owner !== '' && Number(owner) !== pid) return 0;
  return Math.floor(Number(usec) / 1000);
}

export interface WatchdogOptions {
  /** WatchdogSec= in ms (see watchdogIntervalMs()); 0 disables. Pings go out every half of it. */
  intervalMs: number;
  /** When the control loop last completed a tick (same clock as `now`). */
  lastTickAt?: () => number;
  /** How old the last tick may be for the loop to count as alive; default half the interval. */
  maxTickAgeMs?: number;
  /** Extra liveness check, e.g. the I/O workers answered. */
  isAlive?: () => boolean;
  /** Sends one ping; default notifyWatchdog(). */
  ping?: () => Promise<unknown> | unknown;
  now?: () => number;
}

/**
 * Pings the systemd watchdog only while the control loop is making progress, so a stalled
 * loop (not just a dead process) gets the service killed and restarted.
 */
export class Watchdog {
  readonly intervalMs: number;
  /** Pings sent, and checks that found the loop stalled. */
  pings = 0;
  stalls = 0;
  private readonly options: WatchdogOptions;
  private timer: NodeJS.Timeout | null = null;
  private inFlight = false;

  constructor(options: WatchdogOptions) {
    if (!options.lastTickAt && !options.isAlive) {
      throw new TypeError('Watchdog needs lastTickAt or isAlive: a free-running ping would hide a stalled loop');
    }
    this.options = options;
    this.intervalMs = Math.max(0, options.intervalMs);
  }

  /** A watchdog for this process as systemd configured it (disabled outside systemd). */
  static fromEnv(options: Omit<WatchdogOptions, 'intervalMs'>, env: NodeJS.ProcessEnv = process.env): Watchdog {
    return new Watchdog({ ...options, intervalMs: watchdogIntervalMs(env) });
  }

  get enabled(): boolean {
    return this.intervalMs > 0;
  }

  /** A ping is on its way (systemd-notify still running). */
  get pinging(): boolean {
    return this.inFlight;
  }

  get periodMs(): number {
    return Math.max(1, Math.floor(this.intervalMs / 2));
  }

  alive(): boolean {
    const { lastTickAt, isAlive } = this.options;
    if (isAlive && !isAlive()) return false;
    if (lastTickAt) {
      const now = (this.options.now ?? Date.now)();
      const maxAge = this.options.maxTickAgeMs ?? this.periodMs;
      if (now - lastTickAt() > maxAge) return false;
    }
    return true;
  }

  /** One evaluation: pings when the loop is alive. Resolves whether a ping was sent. */
  async check(): Promise<boolean> {
    if (this.inFlight) return false;
    if (!this.alive()) {
      this.stalls++;
      return false;
    }
    this.inFlight = true;
    try {
      await (this.options.ping ?? (() => notifyWatchdog()))();
      this.pings++;
      return true;
    } catch {
      return false;
    } finally {
      this.inFlight = false;
    }
  }

  /** Starts the periodic checks; false when the watchdog is disabled. */
  start(): boolean {
    if (!this.enabled) return false;
    if (this.timer) return true;
    this.timer = setInterval(() => void this.check(), this.periodMs);
    this.timer.unref();
    return true;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
