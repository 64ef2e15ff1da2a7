// A real sd_notify receiver for tests: python3 binds an AF_UNIX datagram socket (Node cannot),
// asks for sender credentials like systemd does, closes fds passed for BARRIER=1 (which is what
// releases systemd-notify) and prints one JSON line per datagram.
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { killAndWait, spawnOwned, type Owner } from '../helpers/children.js';
import { limit } from '../helpers/limits.js';
import { needTools } from '../helpers/tools.js';

const RECEIVER = `
import array, json, os, socket, struct, sys
addr = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
s.bind("\\0" + addr[1:] if addr.startswith("@") else addr)
if not addr.startswith("@"):
    os.chmod(addr, 0o777)  # so an unprivileged sender can reach it too
print(json.dumps({"ready": True}), flush=True)
while True:
    data, anc, flags, _ = s.recvmsg(4096, socket.CMSG_SPACE(12) + socket.CMSG_SPACE(64))
    pid = None
    for level, kind, payload in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
            pid = struct.unpack("iII", payload[:12])[0]
        elif level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds = array.array("i")
            fds.frombytes(payload[: len(payload) - len(payload) % 4])
            for fd in fds:
                os.close(fd)
    print(json.dumps({"pid": pid, "message": data.decode()}), flush=True)
`;

export interface NotifyMessage {
  pid: number | null;
  message: string;
}

export class NotifyHarness {
  readonly messages: NotifyMessage[] = [];
  private constructor(
    readonly address: string,
    private readonly child: ChildProcess,
  ) {}

  /** Starts a receiver on a socket path, or an abstract address when it starts with "@". */
  static async start(address: string, owner?: Owner): Promise<NotifyHarness> {
    needTools('python3');
    const child = spawnOwned('python3', ['-c', RECEIVER, address], { stdio: ['ignore', 'pipe', 'pipe'] }, owner);
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const harness = new NotifyHarness(address, child);
    const lines = createInterface({ input: child.stdout! });
    const startLimit = limit(15000);
    try {
      await new Promise<void>((resolve, reject) => {
        setTimeout(
          () => reject(new Error(`notify harness not ready within ${startLimit} ms: ${stderr}`)),
          startLimit,
        ).unref();
        child.once('error', (err) => reject(new Error(`python3 is needed for the notify harness: ${err.message}`)));
        child.once('exit', (code) => reject(new Error(`notify harness exited with ${code}: ${stderr}`)));
        lines.on('line', (line) => {
          const parsed = JSON.parse(line);
          if (parsed.ready) resolve();
          else harness.messages.push(parsed as NotifyMessage);
        });
      });
    } catch (e) {
      await killAndWait(child);
      throw e;
    }
    return harness;
  }

  /** The datagrams other than the BARRIER=1 that systemd-notify adds. */
  payloads(): string[] {
    return this.messages.map((m) => m.message).filter((m) => m !== 'BARRIER=1');
  }

  count(payload: string): number {
    return this.payloads().filter((m) => m.split('\n').includes(payload)).length;
  }

  async waitFor(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
    timeoutMs = limit(timeoutMs);
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out; received: ${JSON.stringify(this.payloads())}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  stop(): void {
    this.child.removeAllListeners('exit');
    this.child.kill();
  }
}
