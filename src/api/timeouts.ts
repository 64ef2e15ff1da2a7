// Timeouts of the HTTP servers (the controller port and the TLS gateway), suited to a LAN
// service: a client gets 10 s to send its request headers and 20 s for the whole request (a
// 1 MiB body takes well under a second on a LAN; a backup of up to 64 MiB needs some 27 Mbit/s,
// and a larger one on a slow link loads from a file in the data dir, docs/data.md). Node checks them every CHECK_INTERVAL_MS, so a
// slow-sending client is answered 408 and closed within that of its deadline; a check every
// second would wake an idle controller for nothing once a second. Idle keep-alive connections
// and upgraded websockets (/eventbus) are not affected.
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 20_000;
export const CHECK_INTERVAL_MS = 5_000;

/** Options for node's http/https createServer. */
export const SERVER_TIMEOUTS = {
  headersTimeout: HEADERS_TIMEOUT_MS,
  requestTimeout: REQUEST_TIMEOUT_MS,
  connectionsCheckingInterval: CHECK_INTERVAL_MS,
};

/** The same, as fastify options (fastify sets requestTimeout itself, the rest goes to createServer). */
export const FASTIFY_TIMEOUTS = {
  requestTimeout: REQUEST_TIMEOUT_MS,
  http: { headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: CHECK_INTERVAL_MS },
};

/**
 * An answer being sent (a history CSV, a block list) of which the client takes nothing for this
 * long is cut: what it is made from would otherwise stay in memory as long as the client keeps
 * the connection open without reading. Streams with their own byte cap (the event stream,
 * websockets) are not affected.
 */
export const ANSWER_STALL_MS = 20_000;
