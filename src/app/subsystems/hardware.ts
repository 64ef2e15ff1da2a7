// The hardware (buses, GPIO lines, the sim): probed when the app is built; at stop every output
// this service drove goes to its safe state (one line each), then buses and lines are released.
// Outputs are this service's to drive (and to leave safe) once control has started or a tick has
// written to them; a start that failed before that (a busy port) leaves them alone: another
// instance may be driving them.
import type { HardwareLayer } from '../../hardware/layer.js';
import type { Logger } from '../../log.js';
import type { BlockRuntime } from '../../runtime/runtime.js';
import { logSafeOutputs, safeOutputs } from '../shutdown-report.js';
import type { Subsystem } from '../lifecycle.js';

export class HardwareSubsystem implements Subsystem {
  readonly name = 'hardware';
  readonly stopLimitMs = 3000;
  /** Set when control starts: from then on the outputs are this service's. */
  driving = false;
  /** Outputs driven safe at stop. */
  safeCount = 0;

  constructor(
    readonly layer: HardwareLayer,
    private readonly runtime: BlockRuntime,
    private readonly log: Logger,
  ) {}

  get droveOutputs(): boolean {
    return this.driving || this.layer.serviced;
  }

  async stop(): Promise<void> {
    if (this.droveOutputs) {
      const safe = safeOutputs(await this.layer.safeState(), this.runtime.blocks());
      logSafeOutputs(this.log, safe);
      this.safeCount = safe.length;
    }
    await this.layer.close(); // releases buses and lines; drives nothing
  }

  status(): Record<string, unknown> {
    return { hardware: this.layer.status() };
  }
}
