// Every size limit on what a client can send or store, in one place. The numbers relate to each
// other (a block fits many times in a request body, a request body fits in an MQTT packet), so
// they are read side by side here; the code enforcing each one imports it from here.

/** A REST request body, and an MQTT command payload (blocks/create etc.): the same rule for both. */
export const BODY_LIMIT = 1024 * 1024;

/** A block's free-form `meta`, as JSON. */
export const MAX_META_BYTES = 16 * 1024;
/** How deep a block's `meta` may nest. */
export const MAX_META_DEPTH = 32;
/** A block's whole stored record, so no state message, backup or MQTT payload built from blocks outgrows BODY_LIMIT. */
export const MAX_RECORD_BYTES = 64 * 1024;

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
/** A command sent on the history stream websocket (/history/timeseries/stream). */
export const HISTORY_STREAM_COMMAND_BYTES = 64 * 1024;
