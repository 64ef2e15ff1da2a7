// The Spark "enabled" setting (PUT settings/enabled): when false, the control loop stops, block
// updates are paused and every output is driven to its safe state. Persisted in the database,
// so a disabled controller stays disabled across restarts. Read from the database once: only
// set() changes it, and the alerts and the status read it every few seconds. A stored value that
// is neither (bits gone bad on the card) reads as enabled, so a fermenter stays held, and is
// reported (log and the damaged-document alert) until control is set again.
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
  /** What the damaged stored value was, until control is set again; null when it was whole. */
  private damagedValue: string | null = null;

  constructor(
    private readonly store: SettingsStore,
    private readonly runtime: BlockRuntime,
    private readonly loop: ControlLoop,
    /** Every output to its safe state (control disabled), and back to following the blocks. */
    private readonly outputs: { safeState(): Promise<unknown>; resume(): void },
    private readonly log: Logger,
  ) {
    const stored = store.readSetting(KEY);
    this.value = stored !== 'false';
    if (stored !== undefined && stored !== 'true' && stored !== 'false') {
      this.damagedValue = stored.slice(0, 40);
      log.warn({ stored: this.damagedValue }, `${this.damaged()}`);
    }
  }

  /** The stored setting was damaged (neither true nor false): what to tell, or null. */
  damaged(): string | null {
    return this.damagedValue === null
      ? null
      : `the stored control setting (settings row '${KEY}') is damaged; control is kept enabled (outputs follow their blocks) until it is set again (Setup page, or PUT settings/enabled)`;
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
    this.damagedValue = null;
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
