// Every alert channel kind. A new kind is one file in this folder (its ChannelDef) plus one line
// here: the config schema (`alerts.<name>`), the dashboard's channel forms, the test endpoint
// and the configuration reference follow from the list. The MQTT list (mqtt.ts) is not a
// channel kind: it is state on the broker, switched by `alerts.mqtt`.
import type { ChannelDef } from './types.js';
import { email } from './email.js';
import { heartbeat } from './heartbeat.js';
import { ntfy } from './ntfy.js';
import { webhook } from './webhook.js';

export const CHANNELS: readonly ChannelDef[] = [ntfy, email, webhook, heartbeat] as readonly ChannelDef<any>[];

export function channelDef(name: string): ChannelDef | undefined {
  return CHANNELS.find((c) => c.name === name);
}
