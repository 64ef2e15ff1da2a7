// A port another program holds is a user's mistake, not a crash: one line naming the port and
// the fix, exit code 2 (like a configuration error), no stack trace.
import { ConfigError, FixableError } from './errors.js';

export class PortInUseError extends FixableError {
  override name = 'PortInUseError';
}

export function isAddressInUse(e: unknown): boolean {
  return (e as NodeJS.ErrnoException | null)?.code === 'EADDRINUSE';
}

/**
 * The settings of the ports the service listens on: their flag and default, written once here.
 * The config schema takes them from this table, so the schema, `--help`, the docs and the
 * busy-port message say the same.
 */
export const PORT_SETTINGS = {
  port: { flag: '--port', env: 'EDGEBLOCKS_PORT', default: 5000 },
  httpsPort: { flag: '--https-port', env: 'EDGEBLOCKS_HTTPS_PORT', default: 443 },
  mqttPort: { flag: '--mqtt-port', env: 'EDGEBLOCKS_MQTT_PORT', default: 1883 },
} as const;

type PortKey = keyof typeof PORT_SETTINGS;

/** The one-line explanation for a busy port, with the setting's flag and its documented default. */
export function portInUseMessage(what: string, host: string, port: number, key: PortKey, more = ''): string {
  const { flag, default: fallback } = PORT_SETTINGS[key];
  return `${what} port ${port} on ${host} is in use (is another edgeblocks running?): stop the other instance, or choose another port with ${flag} (default ${fallback}${more})`;
}

/**
 * A `host` the service cannot listen on (an address of another machine, a name that does not
 * resolve): the setting is at fault, as a bad value is, not the service. Null for any other error.
 */
export function hostProblem(e: unknown, host: string): ConfigError | null {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  const fix = 'give one of its addresses, or 0.0.0.0 for all of them (the default)';
  if (code === 'EADDRNOTAVAIL')
    return new ConfigError('host', `${JSON.stringify(host)} is not an address of this machine (${code}): ${fix}`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
    return new ConfigError('host', `${JSON.stringify(host)} does not resolve to an address (${code}): ${fix}`);
  return null;
}

const LISTENERS = { port: 'HTTP', httpsPort: 'HTTPS gateway' } as const;

/**
 * The embedded MQTT broker given the port of the HTTP server or of the HTTPS gateway: the start
 * would fail on its own second listen, so it is a bad setting, refused by the config check the
 * start and `edgeblocks check` share. Port 0 (a free one each) is no clash; with an external broker
 * nothing listens on mqttPort. (The gateway on the HTTP port is left to the start, which goes on
 * without the gateway and says so, as it does for any busy gateway port.)
 */
export function sharedPortProblem(config: {
  port: number;
  httpsPort: number;
  mqttPort: number;
  mqttUrl: string;
}): ConfigError | null {
  const mqtt = config.mqttPort;
  if (config.mqttUrl !== 'embedded' || mqtt === 0) return null;
  for (const key of ['port', 'httpsPort'] as const) {
    if (config[key] !== mqtt) continue;
    const { flag: mqttFlag, default: fallback } = PORT_SETTINGS.mqttPort;
    return new ConfigError(
      'mqttPort',
      `${mqtt} is also the ${LISTENERS[key]} port (${key}, ${PORT_SETTINGS[key].flag}); the embedded MQTT broker needs a port of its own: choose another with ${mqttFlag} (default ${fallback}; 0 = a free one)`,
    );
  }
  return null;
}
