// The dead man's switch: a GET of the heartbeat URL every interval while control runs (enabled
// and the loop ticking). healthchecks.io or Uptime Kuma alert when the calls stop. It takes no
// alert messages; its test is one call now. The URL is a secret (anyone with it can ping).
import { Type } from '@sinclair/typebox';
import { UNITS } from '../../../drivers/schema-check.js';
import { httpCall } from './http.js';
import { defineChannel, SECRET, urlOptions, type Channel, type ChannelContext } from './types.js';

export const heartbeat = defineChannel({
  name: 'heartbeat',
  title: "Heartbeat (dead man's switch: healthchecks.io, Uptime Kuma push)",
  schema: Type.Object(
    {
      url: Type.String({
        ...urlOptions('Ping URL', 'called while control runs (healthchecks.io, Uptime Kuma push); secret'),
        ...SECRET,
      }),
      intervalSeconds: Type.Number({
        minimum: 1,
        maximum: 86400,
        default: 300,
        unit: UNITS.seconds,
        title: 'Every (s)',
      }),
    },
    { additionalProperties: false },
  ),
  create: (o, ctx) => new Heartbeat(o.url, o.intervalSeconds * 1000, ctx),
});

export class Heartbeat implements Channel {
  readonly name = 'heartbeat';
  private timer: NodeJS.Timeout | null = null;
  private first: NodeJS.Timeout | null = null;
  /** skipped: control was not running; busy: the last call still waited for its answer. */
  readonly counts = { sent: 0, failed: 0, skipped: 0, busy: 0 };
  lastError: string | null = null;
  /** A call waits for its answer: with a receiver that hangs, beats (every second at the least) would pile up calls. */
  private calling = false;

  constructor(
    private readonly url: string,
    private readonly intervalMs: number,
    private readonly ctx: ChannelContext,
  ) {}

  start(): void {
    const beat = () => void this.beat();
    this.timer = setInterval(beat, this.intervalMs);
    this.timer.unref();
    this.first = setTimeout(beat, Math.min(1000, this.intervalMs));
    this.first.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.first) clearTimeout(this.first);
    this.timer = this.first = null;
  }

  test(): Promise<string> {
    return this.call();
  }

  status(): Record<string, unknown> {
    return { ...this.counts, lastError: this.lastError };
  }

  private call(): Promise<string> {
    return httpCall(this.url, { method: 'GET', timeoutMs: this.ctx.timeoutMs });
  }

  private async beat(): Promise<void> {
    if (!this.timer) return;
    if (!this.ctx.controlRuns()) {
      this.counts.skipped++;
      return;
    }
    if (this.calling) {
      this.counts.busy++;
      return;
    }
    this.calling = true;
    try {
      await this.call();
      this.counts.sent++;
      this.lastError = null;
    } catch (e) {
      this.counts.failed++;
      this.lastError = (e as Error).message;
      this.ctx.log.debug({ error: this.lastError }, 'heartbeat call failed');
    } finally {
      this.calling = false;
    }
  }
}
