// Every size limit on what a client can send or store, in one place. The numbers relate to each
// other (a block fits many times in a request body, a request body fits in an MQTT packet), so
// they are read side by side here; the code enforcing each one imports it from here.

/** A REST request body, and an MQTT command payload (blocks/create etc.): the same rule for both. */
export const BODY_LIMIT = 1024 * 1024;

/**
 * How deep any JSON from outside (a REST body, an MQTT payload, a websocket command) may nest, in
 * objects and arrays: checked before it is parsed (src/shared/json.ts), so no recursive walk of a
 * value (a schema check, a clone, a merge) can overflow the stack. Block meta (MAX_META_DEPTH)
 * inside a batch of blocks fits.
 */
export const MAX_JSON_DEPTH = 64;
/**
 * A backup: a file in the data dir's backups/ (saved there by the service, or uploaded), read whole
 * to load it, and the body of blocks/backup/load and stored/upload. A backup holds every block and
 * datastore document of the controller, each set by a request of up to BODY_LIMIT, so it outgrows one.
 */
export const STORED_BACKUP_BYTES = 64 * BODY_LIMIT;
/**
 * How deep a backup (file or body) may nest: a body's limit and the backup's own levels around its
 * documents (a document the datastore took as `{value: doc}` sits at `{store: [doc]}` in a backup).
 */
export const BACKUP_JSON_DEPTH = MAX_JSON_DEPTH + 2;
/** A config file or sim config file: far more than any holds. */
export const CONFIG_FILE_BYTES = 4 * BODY_LIMIT;
/** A block's free-form `meta`, as JSON. */
export const MAX_META_BYTES = 16 * 1024;
/** How deep a block's `meta` may nest. */
export const MAX_META_DEPTH = 32;
/** A block's whole stored record, so no state message, backup or MQTT payload built from blocks outgrows BODY_LIMIT. */
export const MAX_RECORD_BYTES = 64 * 1024;
/**
 * A datastore change event (one MQTT message): what every edgeblocks reader of the bus takes (the
 * default of mqtt.subscribe). The documents of one call that add up to more go out as several
 * events on the same topic, each within this.
 */
export const DATASTORE_EVENT_BYTES = BODY_LIMIT;
/**
 * A datastore document as stored (JSON), so that it fits in a change event by itself. A request
 * body is within BODY_LIMIT, but its numbers may be stored longer than they were sent (`1e20` is
 * stored as `100000000000000000000`).
 */
export const MAX_DOCUMENT_BYTES = DATASTORE_EVENT_BYTES - 64;
/**
 * All datastore documents together, as stored (JSON): a write that would take the store past it is
 * refused (507), naming the limit and what is used. It bounds every answer built from the whole
 * store or a namespace of it (an `mget` without ids, the controller namespace's part of a
 * backup, which fits a quarter of STORED_BACKUP_BYTES), and the memory one takes on a Pi.
 */
export const DATASTORE_BYTES = 16 * BODY_LIMIT;
/**
 * How deep a datastore change event may nest: a document sits a level deeper in one
 * (`{changed: [doc]}`) than in the `set` body that stored it (`{value: doc}`).
 */
export const DATASTORE_EVENT_DEPTH = MAX_JSON_DEPTH + 1;

/** An MQTT packet on the embedded broker: larger than any state message edgeblocks sends (blocks are capped at 64 KiB each), and 4x the REST body limit. */
export const MAX_PACKET_BYTES = 4 * BODY_LIMIT;
/**
 * The largest MQTT packet the service reads from a broker, embedded or external: a request-sized
 * payload and a long topic. A larger PUBLISH is skipped as its bytes arrive, never buffered or
 * parsed (src/mqtt/packet-limit.ts); to an MQTT 5 broker it is declared as the connection's
 * maximum packet size, so the broker does not send it at all.
 */
export const MAX_READ_PACKET_BYTES = BODY_LIMIT + 64 * 1024;
/** The largest frame any websocket route takes (an /eventbus MQTT message); routes may take less. */
export const WEBSOCKET_MAX_FRAME_BYTES = MAX_PACKET_BYTES;
/** A Home Assistant command (`<root>/ha/<id>/<nid>/set/<key>`): a number, `true` or `false`. */
export const HA_COMMAND_BYTES = 256;
/**
 * Bytes written to one client and not yet taken by it (a stream's own buffer, after the kernel's is
 * full), for the dashboard's event stream and the history stream websocket: past it, the client is
 * closed. Room for a state message of a controller with a few hundred blocks, and checked before a
 * write, so one larger message still goes to a client that keeps up. How many clients
 * may hold one at once: MAX_EVENT_STREAMS.
 */
export const STREAM_QUEUE_BYTES = 256 * 1024;
/** The same for an MQTT subscriber of the embedded broker (TCP or /eventbus): a subscription to `#` gets every retained message (Home Assistant configs, states) at once. */
export const MQTT_CLIENT_QUEUE_BYTES = 4 * STREAM_QUEUE_BYTES;
/**
 * How many clients may hold each kind of stream at once, so the bytes waiting for clients that never
 * read have a bound in all, not only per client: `/events` streams (STREAM_QUEUE_BYTES each, 8 MiB
 * in all), websockets of any route (the history stream, /eventbus; 8 MiB, plus what the broker holds
 * for an /eventbus client) and MQTT clients of the embedded broker from outside, counted once
 * logged in (TCP and /eventbus; MQTT_CLIENT_QUEUE_BYTES each, 64 MiB). Past it a new one is refused with the reason (503,
 * or CONNACK "server unavailable") and the open ones go on. Each is far more than a home needs: a
 * browser tab holds one event stream or one /eventbus socket, and Home Assistant, a dozen peers and
 * a few tools one MQTT connection each. The service's own MQTT client is not counted.
 */
export const MAX_EVENT_STREAMS = 32;
/** See MAX_EVENT_STREAMS. */
export const MAX_WEBSOCKETS = 32;
/** See MAX_EVENT_STREAMS. */
export const MAX_BROKER_CLIENTS = 64;
/**
 * Retained messages the clients of the embedded broker may have it keep, together: at most this
 * many topics, and this many bytes of topic and payload. A retained publish past either is still
 * delivered to the subscribers of the moment, but not kept (src/mqtt/retained.ts); clearing a topic
 * (an empty retained message) always works. The service's own retained messages are outside it,
 * never refused: they grow with its blocks, some 2.4 messages and 1.7 KB a block (300 blocks, a
 * third each sensors, setpoints and switches with Home Assistant on: 721 messages, 496 KB, of
 * which the state message is 213 KB). The bound gives clients room for a dozen or more such
 * controllers (peers sharing this broker, Zigbee2MQTT and the like), at most some 8 MB and a few MB of
 * per-message overhead on a Pi with 512 MB.
 */
export const RETAINED_CLIENT_MESSAGES = 10_000;
/** See RETAINED_CLIENT_MESSAGES: two messages at the packet limit. */
export const RETAINED_CLIENT_BYTES = 2 * MAX_PACKET_BYTES;
/** History queries one history stream websocket may have running at once. */
export const HISTORY_STREAM_QUERIES = 16;
/** A command sent on the history stream websocket (/history/timeseries/stream). */
export const HISTORY_STREAM_COMMAND_BYTES = 64 * 1024;

/**
 * The longest time, in ms, any setting may give a timer (an interval, a retry, a timeout): Node
 * takes a longer setTimeout as 1 ms, so `--emit-interval 3000000000` (a few zeros too many) would
 * have run every millisecond. About 24.8 days.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;
