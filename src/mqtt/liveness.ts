// Is the broker keeping up? QoS 0 publishes are never acknowledged, and a hung broker (stopped,
// swapping, behind a dead link) leaves the TCP connection open while the kernel keeps
// accepting bytes for it, so the client would go on "publishing" into socket buffers and the
// broker would deliver the whole backlog at once when it wakes up. After every emission the
// client sends a PINGREQ; the broker answers in order, so the PINGRESP proves everything sent
// before it was read. A probe unanswered for more than half a second means the broker is not
// keeping up: the connection is not `clear` and emissions are skipped (so when a broker hangs,
// at most half a second of emissions, one at the default 5 s interval, is in flight); a probe unanswered for `deadAfterMs` means the broker is gone, and the connection is
// reset (its unsent bytes discarded) so the client reconnects.
import type { MqttClient } from 'mqtt';
import type { Duplex } from 'node:stream';

/** How long a healthy broker may take to answer a probe. */
export const CONFIRM_GRACE_MS = 500;

export class BrokerLiveness {
  private probeSentAt: number | null = null;
  private readonly onPacket = (packet: { cmd: string }) => {
    if (packet.cmd === 'pingresp') this.probeSentAt = null;
  };

  constructor(
    private readonly client: MqttClient,
    private readonly deadAfterMs: number,
    private readonly onDead: (silentMs: number) => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    client.on('packetreceive', this.onPacket);
    client.on('connect', () => (this.probeSentAt = null));
  }

  /** The broker answered the last probe (or it is not yet overdue) and nothing waits in the socket's buffer. */
  get clear(): boolean {
    const stream = this.client.stream as (Duplex & { writableLength?: number }) | undefined;
    const answered = this.probeSentAt === null || this.now() - this.probeSentAt < CONFIRM_GRACE_MS;
    return answered && (stream?.writableLength ?? 0) === 0;
  }

  /** Send a probe unless one is outstanding; give up on the connection when it is too old. */
  probe(): void {
    if (!this.client.connected) return;
    if (this.probeSentAt === null) {
      this.probeSentAt = this.now();
      this.client.sendPing();
      return;
    }
    const silent = this.now() - this.probeSentAt;
    if (silent < this.deadAfterMs) return;
    this.probeSentAt = null;
    this.onDead(silent);
    const stream = this.client.stream as (Duplex & { resetAndDestroy?: () => void }) | undefined;
    if (typeof stream?.resetAndDestroy === 'function') stream.resetAndDestroy();
    else stream?.destroy();
  }
}
