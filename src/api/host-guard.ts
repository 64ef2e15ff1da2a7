// DNS-rebinding refusal. A web page on evil.example can point its own name at the controller's
// address; the browser then sends the page's requests, with `Host: evil.example` and a matching
// Origin, to the controller, which the cross-site guard cannot tell from the controller's own
// page. So every request and websocket upgrade (HTTP port and TLS gateway) must name a host the
// controller is known by, else it is answered 421 with the setting to add:
//  - any IP address literal: a rebinding needs a name, and an address is what the browser
//    connected to (this also covers Docker port mappings and NAT, where the address the user
//    types is not one of the container's own);
//  - localhost, os.hostname(), `<hostname>.local` (mDNS), the --host bind name;
//  - the hosts of `allowedOrigins` and every `allowedHosts` entry (`*` turns the check off):
//    a reverse proxy's name, a Docker service name the Brewblox UI uses.
// A request with no Host header at all (HTTP/1.0; Node refuses HTTP/1.1 without one) passes:
// browsers always send one, so it is no rebinding attack.
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { HOST_LIMIT, normalHost } from './origin.js';
import { quotedText } from '../../drivers/quoted-text.js';
import { errorBody } from './errors.js';

export interface HostSettings {
  host: string;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
}

/** The names (lower case) the controller is known by. */
export function knownHostNames(settings: HostSettings, machineName = hostname()): Set<string> {
  const name = machineName.toLowerCase();
  const names = new Set(['localhost', name, `${name}.local`]);
  if (settings.host !== '0.0.0.0' && settings.host !== '::') names.add(settings.host.toLowerCase());
  for (const origin of settings.allowedOrigins) names.add(new URL(origin).hostname.toLowerCase());
  for (const entry of settings.allowedHosts) names.add(normalHost(entry));
  return names;
}

/** The host name of a Host header value (`name`, `name:port`, `[v6]:port`), lower case, or null when it is none. */
export function hostNameOf(header: string): string | null {
  let name = header.trim().toLowerCase();
  if (name.startsWith('[')) {
    const end = name.indexOf(']');
    return end > 0 && isIP(name.slice(1, end)) ? name.slice(1, end) : null;
  }
  const colon = name.indexOf(':');
  if (colon >= 0) name = name.slice(0, colon);
  return name.replace(/\.$/, '') || null;
}

/** Why a request with these headers is refused, or null when it may proceed. */
export function hostRefusal(headers: IncomingHttpHeaders, known: ReadonlySet<string>): string | null {
  const header = headers.host;
  if (header === undefined || known.has('*')) return null;
  const name = hostNameOf(header);
  if (name !== null && (known.has(name) || isIP(name))) return null;
  // A header of any length is quoted cut short; a name a DNS name can be (253 characters) whole, to be copied.
  const example = name !== null && name.length <= HOST_LIMIT && /^[\w.-]+$/.test(name) ? name : 'NAME';
  return (
    `Host ${JSON.stringify(quotedText(header, HOST_LIMIT))} is not a name this controller is known by (an IP address, ${[...known].join(', ')}); ` +
    `a web page may be reaching it through DNS rebinding. If this is the name you use, add it to allowedHosts in the config file ` +
    `or to EDGEBLOCKS_ALLOWED_HOSTS (comma-separated), e.g. EDGEBLOCKS_ALLOWED_HOSTS=${example}`
  );
}

/** Install the check on every request of `app`, websocket upgrades included (call before the other guards and the routes). */
export function installHostGuard(app: FastifyInstance, settings: HostSettings): void {
  const known = knownHostNames(settings);
  app.addHook('onRequest', (req, reply, done) => {
    const refused = hostRefusal(req.headers, known);
    if (refused) return void reply.status(421).send(errorBody(421, refused));
    done();
  });
}
