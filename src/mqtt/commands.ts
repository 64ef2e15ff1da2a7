// Commands over MQTT (the block API, Home Assistant's `set` topics) are applied when they are sent.
// A broker hands each retained message to every new subscription, with the retain flag set; it
// clears the flag on the messages it forwards as they are published (MQTT 3.1.1 §3.3.1.3; MQTT 5
// without retain-as-published, which the service never asks for). So a command once sent
// retained (`mosquitto_pub -r`, a Home Assistant entity set to retain) would be played again at
// every restart and reconnect, over whatever was written since: a setpoint back to an old value,
// a block deleted again. Such a copy is no command, nor is the empty message that clears one.
import type { MessageHandler } from './connection.js';

/** `handler`, given only the messages of a command filter that are commands; `onReplay` hears of the retained copies skipped. */
export function liveCommands(handler: MessageHandler, onReplay: (topic: string) => void): MessageHandler {
  return (topic, payload, retained) => {
    if (retained) return payload.length ? onReplay(topic) : undefined;
    if (payload.length) handler(topic, payload, false);
  };
}
