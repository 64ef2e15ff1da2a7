// Websocket upgrades on one HTTP server: each listener serves its own path (/eventbus,
// /history/timeseries/stream). Node hands every upgrade to every listener, so a path that no one
// serves would hang until the client gives up; the fallback here answers it 404 instead.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

type UpgradeServer = Pick<Server, 'on' | 'off'>;
type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

const servedPaths = new WeakMap<object, Set<string>>();

function pathOf(req: IncomingMessage): string {
  return (req.url ?? '').split('?')[0];
}

const REASONS: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 421: 'Misdirected Request', 503: 'Service Unavailable' };

/** Refuse an upgrade with a plain HTTP answer (the socket is not HTTP-parsed any more) and close it. */
export function answerUpgrade(socket: Duplex, status: keyof typeof REASONS, text = ''): void {
  const body = text ? `Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}` : 'Content-Length: 0\r\n\r\n';
  socket.end(`HTTP/1.1 ${status} ${REASONS[status]}\r\nConnection: close\r\n${body}`);
}

/** Answer 404 to every upgrade of `server` whose path no `serveUpgrade` claims (idempotent). */
export function refuseUnservedUpgrades(server: UpgradeServer): Set<string> {
  const known = servedPaths.get(server);
  if (known) return known;
  const served = new Set<string>();
  servedPaths.set(server, served);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    // A guard listener (auth, cross-site) may already have answered and closed it.
    if (socket.destroyed || !socket.writable || served.has(pathOf(req))) return;
    answerUpgrade(socket, 404);
  });
  return served;
}

/** Serve upgrades of `path` on `server`; returns the detacher. */
export function serveUpgrade(server: UpgradeServer, path: string, handler: UpgradeHandler): () => void {
  const paths = refuseUnservedUpgrades(server);
  paths.add(path);
  const listener: UpgradeHandler = (req, socket, head) => {
    if (pathOf(req) === path && !socket.destroyed && socket.writable) handler(req, socket, head);
  };
  server.on('upgrade', listener);
  return () => {
    paths.delete(path);
    server.off('upgrade', listener);
  };
}
