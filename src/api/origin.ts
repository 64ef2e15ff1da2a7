// Web origins as configured in `allowedOrigins` and host names as in `allowedHosts` (shared by the config check and the guards).
import { isIP } from 'node:net';

/** Longest Host or origin a message quotes whole: a DNS name (253 characters) with a scheme and a port. */
export const HOST_LIMIT = 270;

/** An allowedOrigins entry as a URL origin (`http://host:port`); throws on anything else. */
export function normalOrigin(entry: string): string {
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    throw new Error(`${JSON.stringify(entry)} is not a URL; give an origin like http://host:8080`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`${JSON.stringify(entry)} is not an http(s) origin`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username)
    throw new Error(`${JSON.stringify(entry)} must be an origin only, like http://host:8080`);
  return url.origin;
}

const HOST_NAME = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

/** An allowedHosts entry as the guard compares it (lower case, no trailing dot); `*` is any host. Throws on anything else. */
export function normalHost(entry: string): string {
  const name = entry.trim().toLowerCase().replace(/\.$/, '');
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  if (name === '*' || HOST_NAME.test(name) || isIP(bare)) return bare;
  throw new Error(
    `${JSON.stringify(entry)} is not a host name; give a name like brewblox.local (no scheme, no port), or * for any`,
  );
}
