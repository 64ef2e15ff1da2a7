// A raw byte connection to an external broker, for piping a websocket client's MQTT stream
// to it: TCP for mqtt://, TLS for mqtts://, a websocket for ws:// and wss://.
//
// The bridge never lends the controller's identity: the client's own CONNECT packet (with its
// own username and password, or none) goes through untouched, the controller's credentials
// (in mqttUsername/mqttPassword or in the URL) are never added, and its client certificate is
// never presented. A broker that wants a client certificate would see the controller's, so
// with mqttCert set the bridge is off: upgrades are answered 503 with the reason, logged once.
import { connect as netConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { WebSocket, createWebSocketStream } from 'ws';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { EventbusTarget } from './eventbus-ws.js';

export interface UpstreamTls {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized?: boolean;
}

export function openUpstream(url: string, tls: UpstreamTls = {}): Duplex {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  switch (u.protocol) {
    case 'mqtt:':
    case 'tcp:':
      return netConnect({ host, port: Number(u.port || 1883) });
    case 'mqtts:':
    case 'ssl:':
      return tlsConnect({ host, port: Number(u.port || 8883), servername: host, ...tls });
    case 'ws:':
    case 'wss:':
      return createWebSocketStream(new WebSocket(url, ['mqtt'], tls));
    default:
      throw new Error(`no upstream transport for ${u.protocol}`);
  }
}

/** How /eventbus reaches the external broker: the broker's address and CA only, or a refusal. */
export function bridgeTarget(config: Config, tls: UpstreamTls, log: Logger): EventbusTarget {
  if (config.mqttCert) {
    const refused =
      'mqtt over websocket at /eventbus is off: the external broker is reached with a client certificate (mqttCert), ' +
      "and the bridge will not lend the controller's certificate identity to websocket clients; " +
      "let clients use the broker's own websocket listener, or use the embedded broker";
    log.warn(refused);
    return { refused };
  }
  const url = new URL(config.mqttUrl);
  url.username = '';
  url.password = '';
  const own = { ca: tls.ca, rejectUnauthorized: tls.rejectUnauthorized };
  return { upstream: () => openUpstream(url.toString(), own) };
}
