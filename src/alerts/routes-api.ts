// What the alert routes (routes.ts, channel-routes.ts) call of the alerts subsystem. Alerts
// (index.ts) implements it and registers the routes, so the routes do not import the class.
import type { ChannelStore } from './channel-store.js';
import type { Rules } from './rules.js';
import type { ActiveAlert, HistoryEntry } from './types.js';

export interface AlertsApi {
  readonly channelStore: ChannelStore;
  status(): Record<string, unknown>;
  /** Active alerts, their times as wall-clock epoch ms. */
  active(): ActiveAlert[];
  history(): HistoryEntry[];
  /** A test message to every channel that takes messages, or to the one named. */
  sendTest(only?: string): Promise<{ channel: string; ok: boolean; answer: string }[]>;
  acknowledge(key: string): boolean;
  currentRules(): { rules: Rules; document: Record<string, unknown> | null; error: string | null };
  /** Validate and store the rules document; throws SchemaError naming the field. */
  setRules(input: Record<string, unknown>): Rules;
  /** Set up or replace a dashboard channel; throws SchemaError or a channel error. */
  saveChannel(name: string, input: Record<string, unknown>): void;
  removeChannel(name: string): void;
}
