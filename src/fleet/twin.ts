// Another controller with this one's service id on the same broker: a Pi set up from a copy of
// this one's SD card (or its config file) and never renamed. Both then take the block commands
// sent to that id and publish state and history under it, and nothing else shows it: the two
// fermenters' temperatures take turns in one graph. Each controller's presence message carries
// an id of its run (`instance`); a presence on this controller's own topic with another run's id,
// online and sent now (not a retained copy from before this start, which may be this
// controller's own last run), is such a twin. Seeing one, this controller answers with its own
// presence, so the twin hears of it too (what it read at its start was a retained copy).
import type { Logger } from '../log.js';
import { WarningLimiter } from '../log/limit.js';

/** At most one answer this often: a client forging presences with new ids gets no flood back. */
export const TWIN_ANSWER_INTERVAL_MS = 10_000;

export interface Twin {
  /** The other run's id. */
  instance: string;
  /** Where the other controller's dashboard is, as it says. */
  dashboardUrl: string | null;
}

export interface TwinMessage {
  instance: string | null;
  online: boolean;
  dashboardUrl: string | null;
}

export class TwinWatch {
  private twin: Twin | null = null;
  private lastAnswer = -Infinity;
  /** An answer held back by the limit is to go out. */
  private answerDue = false;
  /** Any client of the broker can publish on this topic: what it makes us log is limited. */
  private readonly warnings: WarningLimiter;
  private readonly notices: WarningLimiter;

  constructor(
    private readonly o: {
      serviceId: string;
      /** This run's id. */
      instance: string;
      /** Publish this controller's presence now (not retained). */
      answer: () => void;
      log: Pick<Logger, 'warn' | 'info'>;
      monotonic: () => number;
      /** Run `fn` in `ms` (an answer held back by the limit); default an unref'd setTimeout. */
      later?: (fn: () => void, ms: number) => void;
    },
  ) {
    this.warnings = new WarningLimiter(o.log, { now: o.monotonic });
    this.notices = new WarningLimiter(o.log, { now: o.monotonic, level: 'info' });
  }

  /** A presence message on this controller's own topic. */
  seen(msg: TwinMessage, retained: boolean): void {
    if (msg.instance === null || msg.instance === this.o.instance) return;
    if (!msg.online) {
      // Retained too: the twin may have gone while this controller was off the broker, and the
      // copy handed over at the reconnect is all it hears of that.
      if (this.twin?.instance !== msg.instance) return;
      this.twin = null;
      this.notices.warn('gone', {}, `the other controller with service id "${this.o.serviceId}" went offline`);
      return;
    }
    if (retained) return;
    const isNew = this.twin?.instance !== msg.instance;
    this.twin = { instance: msg.instance, dashboardUrl: msg.dashboardUrl };
    if (!isNew) return;
    this.warnings.warn(
      'twin',
      { other: this.twin },
      `another controller is online with this one's service id "${this.o.serviceId}"${msg.dashboardUrl ? ` (${msg.dashboardUrl})` : ''}: give one of them its own serviceId`,
    );
    this.answer();
  }

  /**
   * Answers now, or once the limit allows: a twin that restarted quickly learns of this
   * controller only from an answer, so one held back is sent late, not dropped.
   */
  private answer(): void {
    const wait = this.lastAnswer + TWIN_ANSWER_INTERVAL_MS - this.o.monotonic();
    if (wait > 0) {
      if (this.answerDue) return;
      this.answerDue = true;
      const later = this.o.later ?? ((fn, ms) => setTimeout(fn, ms).unref());
      later(() => {
        this.answerDue = false;
        this.answer();
      }, wait);
      return;
    }
    this.lastAnswer = this.o.monotonic();
    this.o.answer();
  }

  current(): Twin | null {
    return this.twin;
  }
}
