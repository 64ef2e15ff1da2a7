// What the MQTT side needs from authentication (implemented by src/auth): the embedded broker's
// CONNECT check, the /eventbus upgrade check, and the service's own client credentials.
import type { IncomingMessage } from 'node:http';

export interface BusAuth {
  readonly enabled: boolean;
  allowMqtt(username: string | undefined, password: Buffer | undefined, req?: IncomingMessage): Promise<boolean>;
  readonly internal: { username: string; password: string };
}
