// A raw byte connection to an external broker, for piping a websocket client's MQTT stream
// to it: TCP for mqtt://, TLS for mqtts://, a websocket for ws:// and wss://.
import { connect as netConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { WebSocket, createWebSocketStream } from 'ws';

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
