// The message bus (src/mqtt): broker or bridge, the service's connection, /eventbus, and the
// datastore's change events on it. Stops after the outputs are safe, so the offline state it
// publishes last is true.
import type { Subsystem } from '../lifecycle.js';
import type { AppMqtt } from '../../mqtt/index.js';
import type { StoreSubsystem } from './store.js';

export class MqttSubsystem implements Subsystem {
  readonly name = 'mqtt';
  readonly phase = 'mqtt start';
  readonly stopLimitMs = 2500;
  /** Whether the stop found the connection up (so the offline state went out). */
  offlinePublished = false;
  private detachDatastore: (() => void) | null = null;

  constructor(
    readonly bus: AppMqtt,
    private readonly store: StoreSubsystem,
  ) {}

  async start(): Promise<void> {
    this.detachDatastore = this.store.attachBus(this.bus);
    await this.bus.start();
  }

  async stop(): Promise<void> {
    this.detachDatastore?.();
    this.detachDatastore = null;
    this.offlinePublished = this.bus.connected;
    await this.bus.stop();
  }

  status(): Record<string, unknown> {
    return { mqtt: this.bus.status() };
  }
}
