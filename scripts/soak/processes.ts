// The real parts of the soak run: the built service as a child process (as the systemd unit runs
// it, on the virtual clock of virtual-clock.ts), an external Mosquitto, a webhook receiver for
// alerts, and a small tmpfs for the data dir that can be filled to the last byte.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import path from 'node:path';
export { SmallDisk } from './small-disk.js';
import { freePort, waitForPort } from '../ports.js';
export { freePort };
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The checkout: the nearest directory above with a package.json (this file runs from scripts/soak,
 *  dist/scripts/soak for npm run soak, or dist-test/scripts/soak for the compiled test). */
function findRoot(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error('no package.json above the soak harness');
  }
}
export const ROOT = findRoot();
export const CLI = path.join(ROOT, 'dist/src/main.js');
const PRELOAD = path.join(ROOT, 'dist/scripts/soak/virtual-clock.js');

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function own(child: ChildProcess): Promise<number | null> {
  live.add(child);
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve(code ?? (signal ? -1 : null));
    });
  });
}

/** The clock of the running service: its rate ceiling and wall-clock jumps (virtual-clock.ts). */
export interface ClockControl {
  rate: number;
  jumpBy: number | null;
  seq: number;
}

export interface ServiceOptions {
  dir: string;
  dataDir: string;
  config: Record<string, unknown>;
  /** Real-time limit for a start or a stop. */
  limitMs: number;
}

/** The built service, started and stopped as the unit does (SIGTERM; or kill -9). */
export class SoakService {
  private child: ChildProcess | null = null;
  private exited: Promise<number | null> = Promise.resolve(null);
  private out = '';
  private seq = 0;
  private readonly clockFile: string;
  private readonly configFile: string;
  readonly simConfigFile: string;
  base = '';
  api = '';
  /** Everything every run wrote (kept for a failure report: the last 64 KB). */
  log = '';

  constructor(private readonly o: ServiceOptions) {
    this.clockFile = path.join(o.dir, 'clock.json');
    this.configFile = path.join(o.dir, 'config.json');
    this.simConfigFile = path.join(o.dir, 'sim.json');
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts with the wall clock at `wall` (epoch ms) and simulated time at most `rate` times real time. */
  async start(wall: number, rate: number, simConfig: unknown): Promise<void> {
    writeFileSync(this.simConfigFile, JSON.stringify(simConfig));
    writeFileSync(this.configFile, JSON.stringify({ ...this.o.config, simConfig: this.simConfigFile }));
    // A start is real work (modules, the database, sockets): it runs at real speed, and the
    // simulated time is let go only once the service has said it is up.
    this.setClock({ rate: 1, jumpBy: null });
    this.out = '';
    const child = spawn(
      process.execPath,
      [
        '--import',
        pathToFileURL(PRELOAD).href,
        CLI,
        '--config',
        this.configFile,
        '--data-dir',
        this.o.dataDir,
        '--port',
        '0',
        '--https-port',
        '0',
      ],
      {
        env: {
          ...process.env,
          // As systemd/edgeblocks.service sets them.
          NODE_OPTIONS: '--max-semi-space-size=2',
          MALLOC_ARENA_MAX: '2',
          NODE_ENV: 'production',
          EDGEBLOCKS_LOG_FORMAT: 'json',
          SOAK_CLOCK_START: String(Math.round(wall)),
          SOAK_CLOCK_FILE: this.clockFile,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    this.exited = own(child);
    const append = (c: Buffer) => {
      this.out += c.toString();
      this.log = (this.log + c.toString()).slice(-65536);
    };
    child.stdout!.on('data', append);
    child.stderr!.on('data', append);
    const deadline = Date.now() + this.o.limitMs;
    for (;;) {
      const m = /http listening on (?:https?:\/\/)?[^:\s]*:(\d+)/.exec(this.out);
      if (m && this.out.includes('start-up phases')) {
        this.base = `http://127.0.0.1:${m[1]}`;
        this.api = `${this.base}/edge-one`;
        this.setClock({ rate, jumpBy: null });
        return;
      }
      if (!this.running) throw new Error(`the service exited at its start:\n${this.out.slice(-4000)}`);
      if (Date.now() > deadline) {
        await this.kill();
        throw new Error(`the service did not start within ${this.o.limitMs} ms:\n${this.out.slice(-4000)}`);
      }
      await sleep(50);
    }
  }

  /** SIGTERM, as systemctl stop; the exit code. */
  async stop(): Promise<number | null> {
    if (!this.running) return this.exited;
    this.child!.kill('SIGTERM');
    const code = await Promise.race([this.exited, sleep(this.o.limitMs).then(() => 'late' as const)]);
    if (code === 'late') {
      await this.kill();
      throw new Error(`the service did not stop within ${this.o.limitMs} ms of SIGTERM:\n${this.out.slice(-4000)}`);
    }
    return code;
  }

  async kill(): Promise<void> {
    if (!this.running) return;
    this.child!.kill('SIGKILL');
    await this.exited;
  }

  /** Changes the rate ceiling, or moves the wall clock by `jumpBy` ms (a jump). */
  setClock(c: { rate: number; jumpBy: number | null }): void {
    this.seq++;
    writeFileSync(this.clockFile, JSON.stringify({ ...c, seq: this.seq } satisfies ClockControl));
  }

  /** Waits until the service has applied the last clock change that moved the wall clock. */
  async clockApplied(limitMs: number): Promise<void> {
    const deadline = Date.now() + limitMs;
    for (;;) {
      try {
        const applied = JSON.parse(readFileSync(`${this.clockFile}.applied`, 'utf8')) as { seq: number };
        if (applied.seq === this.seq) return;
      } catch {
        // not written yet
      }
      if (Date.now() > deadline) throw new Error('the service did not apply the clock change');
      await sleep(20);
    }
  }

  rssBytes(): number | null {
    if (!this.running) return null;
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'));
      return m ? Number(m[1]) * 1024 : null;
    } catch {
      return null;
    }
  }

  output(): string {
    return this.out;
  }

  async request(method: 'GET' | 'POST' | 'PUT' | 'DELETE', route: string, body?: unknown): Promise<any> {
    const url = route.startsWith('/') ? `${this.base}${route}` : `${this.api}/${route}`;
    const res = await fetch(url, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 500)}`);
    return res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  }
}

/** A real Mosquitto on a free port; stop() and start() again on the same port (an outage). */
export class Broker {
  private child: ChildProcess | null = null;
  private exited: Promise<number | null> = Promise.resolve(null);
  private readonly conf: string;

  constructor(
    dir: string,
    readonly port: number,
  ) {
    this.conf = path.join(dir, 'mosquitto.conf');
    writeFileSync(
      this.conf,
      [`listener ${port} 127.0.0.1`, 'allow_anonymous true', 'persistence false', 'log_dest none', ''].join('\n'),
    );
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn('mosquitto', ['-c', this.conf], { stdio: 'ignore' });
    this.child = child;
    this.exited = own(child);
    const failed = new Promise<never>((_, reject) =>
      child.once('error', (e) =>
        reject(new Error(`mosquitto could not start (apt-get install mosquitto): ${e.message}`)),
      ),
    );
    await Promise.race([waitForPort(this.port, 10_000, () => child.exitCode === null), failed]);
  }

  async stop(): Promise<void> {
    if (!this.child || this.child.exitCode !== null) return;
    this.child.kill('SIGTERM');
    await this.exited;
  }
}

/** Alert messages as a webhook receives them. */
export class AlertReceiver {
  readonly got: Array<Record<string, any>> = [];
  private server: Server | null = null;
  port = 0;

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        try {
          this.got.push(JSON.parse(body));
        } catch {
          this.got.push({ unparsable: body });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}

/** Bytes of a file or of every file under a directory. */
export function sizeOf(p: string): number {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const name of readdirSync(p)) total += sizeOf(path.join(p, name));
  return total;
}

/** The data dir's files, in bytes: the database (with its WAL), history and the stored backups. */
export function dataSizes(dataDir: string): { dbBytes: number; historyBytes: number; backupsBytes: number } {
  const db = path.join(dataDir, 'edgeblocks.db');
  return {
    dbBytes: sizeOf(db) + sizeOf(`${db}-wal`) + sizeOf(`${db}-shm`),
    historyBytes: sizeOf(path.join(dataDir, 'history')),
    backupsBytes: sizeOf(path.join(dataDir, 'backups')),
  };
}
