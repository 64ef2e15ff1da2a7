// The Spark "enabled" setting (PUT settings/enabled): when false, the control loop stops, block
// updates are paused and every output is driven to its safe state. Persisted in the database,
// so a disabled controller stays disabled across restarts. Read from the database once: only
// set() changes it, and the alerts and the status read it every few seconds.
import type { Logger } from '../log.js';
import type { ControlLoop } from '../runtime/loop.js';
import type { BlockRuntime } from '../runtime/runtime.js';

export interface SettingsStore {
  readSetting(key: string): string | undefined;
  writeSetting(key: string, value: string): void;
}

const KEY = 'control_enabled';

export class ControlEnabled {
  private value: boolean;

  constructor(
    private readonly store: SettingsStore,
    private readonly runtime: BlockRuntime,
    private readonly loop: ControlLoop,
    /** Every output to its safe state (control disabled), and back to following the blocks. */
    private readonly outputs: { safeState(): Promise<unknown>; resume(): void },
    private readonly log: Logger,
  ) {
    this.value = store.readSetting(KEY) !== 'false';
  }

  get enabled(): boolean {
    return this.value;
  }

  /** Start the loop, or (when disabled before the restart) keep it stopped with outputs safe. */
  async start(): Promise<void> {
    await this.apply(this.enabled);
  }

  async set(enabled: boolean): Promise<boolean> {
    this.store.writeSetting(KEY, String(enabled));
    this.value = enabled;
    await this.apply(enabled);
    this.log.info({ enabled }, enabled ? 'control enabled' : 'control disabled; outputs in their safe state');
    return enabled;
  }

  private async apply(enabled: boolean): Promise<void> {
    this.runtime.paused = !enabled;
    if (enabled) {
      this.outputs.resume();
      this.loop.start();
    } else {
      await this.loop.stop();
      await this.outputs.safeState();
    }
  }
}
