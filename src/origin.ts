// Web origins as configured in `allowedOrigins` (shared by the config check and the cross-site guard).

/** An allowedOrigins entry as a URL origin (`http://host:port`); throws on anything else. */
export function normalOrigin(entry: string): string {
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    throw new Error(`${JSON.stringify(entry)} is not a URL; give an origin like http://host:8080`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${JSON.stringify(entry)} is not an http(s) origin`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username) throw new Error(`${JSON.stringify(entry)} must be an origin only, like http://host:8080`);
  return url.origin;
}
