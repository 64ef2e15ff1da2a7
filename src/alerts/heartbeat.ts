// The dead man's switch: a GET of the heartbeat URL every interval while control runs (enabled
// and the loop ticking). healthchecks.io or Uptime Kuma alert when the calls stop.
import type { Logger } from '../log.js';
import { httpCall } from './channels/http.js';

export class Heartbeat {
  private timer: NodeJS.Timeout | null = null;
  readonly counts = { sent: 0, failed: 0, skipped: 0 };
  lastError: string | null = null;

  constructor(
    private readonly o: { url: string; intervalMs: number; timeoutMs: number; controlRuns: () => boolean; log: Logger },
  ) {}

  start(): void {
    const beat = () => void this.beat();
    this.timer = setInterval(beat, this.o.intervalMs);
    this.timer.unref();
    setTimeout(beat, Math.min(1000, this.o.intervalMs)).unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async beat(): Promise<void> {
    if (!this.timer) return;
    if (!this.o.controlRuns()) {
      this.counts.skipped++;
      return;
    }
    try {
      await httpCall(this.o.url, { method: 'GET', timeoutMs: this.o.timeoutMs });
      this.counts.sent++;
      this.lastError = null;
    } catch (e) {
      this.counts.failed++;
      this.lastError = (e as Error).message;
      this.o.log.debug({ error: this.lastError }, 'heartbeat call failed');
    }
  }
}
