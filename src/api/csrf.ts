// Cross-site request refusal. A page in a browser on the LAN must not be able to change the
// controller: every state-changing request (POST, PUT, PATCH, DELETE) and every websocket
// upgrade whose Origin (or, without one, Referer) is neither this host (as the request's Host
// header names it, port included) nor an `allowedOrigins` entry is refused with 403. Requests
// with neither header (curl, scripts, other services) are not from a browser page and pass.
// A POST must also say `content-type: application/json`: a form or `text/plain` POST, which a
// browser sends cross-site without asking, is 415 even with no body. Only a POST with no body
// and no content-type at all passes without it (what `curl -XPOST` and the Brewblox UI's
// axios send); a browser cannot send that without an Origin header, which is checked.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { HOST_LIMIT, normalOrigin } from './origin.js';
import { quotedText } from '../../drivers/quoted-text.js';
import { errorBody } from './errors.js';
import { notJson } from './http-hints.js';
import type {} from '@fastify/websocket';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Why a request from this origin is refused, or null when it may proceed. `allowedOrigins` as normalOrigin gives them. */
export function crossSiteRefusal(headers: IncomingHttpHeaders, allowedOrigins: readonly string[]): string | null {
  const origin = headers.origin;
  const referer = headers.referer;
  const source = origin ?? referer;
  if (source === undefined) return null;
  const header = origin !== undefined ? 'Origin' : 'Referer';
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    return `cross-site request refused: ${header} ${JSON.stringify(quotedText(source))} is not a URL`;
  }
  if (url.origin !== 'null' && headers.host !== undefined && sameHost(url, headers.host)) return null;
  if (url.origin !== 'null' && allowedOrigins.includes(url.origin)) return null;
  // Headers of any length (up to node's header limit): quoted cut short.
  const named = url.origin === 'null' ? JSON.stringify(quotedText(source)) : quotedText(url.origin, HOST_LIMIT);
  return `cross-site request refused: ${header} ${named} is neither this host (${headers.host === undefined ? 'no Host header' : quotedText(headers.host, HOST_LIMIT)}) nor listed in allowedOrigins`;
}

/** A POST that is not JSON: the reason, or null when it is fine. */
export function contentTypeRefusal(method: string, headers: IncomingHttpHeaders): string | null {
  if (method !== 'POST') return null;
  const type = headers['content-type'];
  if (type === 'application/json') return null; // what nearly every client sends: no parsing per request
  if (type !== undefined) {
    const media = type.split(';')[0]!.trim().toLowerCase();
    return media === 'application/json' ? null : notJson(type);
  }
  const hasBody = headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
  return hasBody ? notJson(undefined) : null;
}

/** Install the checks on every request of `app`, websocket upgrades included (call before registering routes; after @fastify/websocket, which sets `req.ws`). */
export function installCrossSiteGuard(app: FastifyInstance, allowedOrigins: readonly string[] = []): void {
  const allowed = allowedOrigins.map(normalOrigin);
  // A callback hook, not an async one: it runs on every request, and a promise per request costs.
  app.addHook('onRequest', (req, reply, done) => {
    // A websocket upgrade (a GET) is state-changing too: /eventbus can publish.
    if (!STATE_CHANGING.has(req.method) && !req.ws) return done();
    const refused = crossSiteRefusal(req.headers, allowed);
    if (refused) return void reply.status(403).send(errorBody(403, refused));
    const wrongType = contentTypeRefusal(req.method, req.headers);
    if (wrongType) return void reply.status(415).send(errorBody(415, wrongType));
    done();
  });
}

function sameHost(url: URL, host: string): boolean {
  try {
    return new URL(`${url.protocol}//${host}`).host === url.host;
  } catch {
    return false;
  }
}
