// The block API over MQTT: `R/controller/blocks/{create,write,patch,delete}`, and the same on
// `R/spark/blocks/...`, where Brewblox services write blocks. A message is
// handled only when its serviceId is ours (the topics are shared by every controller), with the
// same validation and size limit as REST, when it is sent (a retained copy is not played again at
// each connect: commands.ts). Whatever is wrong with a message is counted, logged
// (once a minute per topic, src/log/limit.ts) and the message dropped.
import { parseJson, quoteAsSent, sentField, sentNumbersOf, utf8Problem } from '../shared/json.js';
import { BODY_LIMIT } from '../shared/limits.js';
import { isPlainObject } from '../codec/partial.js';
import type { Logger } from '../log.js';
import type { WarningLimiter } from '../log/limit.js';
import { BlockError } from '../runtime/errors.js';
import type { BlockRuntime } from '../runtime/runtime.js';
import type { MqttConnection } from './connection.js';
import { CONTROLLER_ACTIONS, type ControllerAction, type Topics } from './topics.js';

export const MQTT_ORIGIN = 'mqtt';

/** Why a message was dropped: the log line and its fields. */
export interface Dropped {
  message: string;
  fields: Record<string, unknown>;
}

/** Apply one block API message; what was wrong with it, or null when it was applied or not ours. */
export function handleControllerMessage(
  runtime: BlockRuntime,
  action: ControllerAction,
  payload: Buffer,
  log: Logger,
): Dropped | null {
  // As REST refuses such a body: decoded anyway, each byte of another encoding became U+FFFD.
  const notUtf8 = utf8Problem('the payload', payload);
  if (notUtf8)
    return {
      fields: { action, bytes: payload.length, reason: notUtf8 },
      message: `mqtt blocks/${action} dropped: ${notUtf8}`,
    };
  // As REST parses a body (api/server.ts): its integers a double cannot hold noted as sent.
  const parsed = parseJson(payload, { maxBytes: BODY_LIMIT, what: 'the payload', sent: true });
  if (!parsed.ok) {
    const { problem, reason } = parsed;
    const message =
      problem === 'too large'
        ? `${reason} (the same as REST)`
        : problem === 'not JSON'
          ? 'the payload is not JSON'
          : reason;
    return {
      fields: { action, bytes: payload.length, limit: BODY_LIMIT, reason },
      message: `mqtt blocks/${action} dropped: ${message}`,
    };
  }
  const body = parsed.value;
  if (!isPlainObject(body)) {
    return {
      fields: { action, reason: 'not a JSON object' },
      message: `mqtt blocks/${action} dropped: the payload is not a JSON object (a block)`,
    };
  }
  if (body.serviceId !== runtime.serviceId) {
    log.debug({ action, serviceId: body.serviceId }, `mqtt blocks/${action} ignored: for another service`);
    return null;
  }
  try {
    const result = runtime[action](body, MQTT_ORIGIN);
    log.debug({ action, id: result.id }, `mqtt blocks/${action} done`);
    return null;
  } catch (e) {
    let reason = e instanceof Error ? e.message : String(e);
    // As REST's refusal (api/errors.ts): a number quoted as sent, not as JSON.parse rounded it;
    // the line's fields too.
    if (e instanceof BlockError && e.validation?.length)
      reason = quoteAsSent(reason, e.validation, sentNumbersOf(body)).message;
    return {
      fields: { action, id: sentField(body, 'id', body.id), nid: sentField(body, 'nid', body.nid), reason },
      message: `mqtt blocks/${action} dropped: ${reason}`,
    };
  }
}

/** Messages dropped, counted for status; their warnings go through `warnings`, one a minute per topic. */
export function subscribeControllerTopics(opts: {
  conn: MqttConnection;
  runtime: BlockRuntime;
  topics: Topics;
  log: Logger;
  warnings: WarningLimiter;
  counts: { blockApiDropped: number };
}): () => void {
  const { conn, runtime, topics, log, warnings, counts } = opts;
  const unsubscribes = CONTROLLER_ACTIONS.flatMap((action) =>
    [topics.controller(action), topics.sparkBlocks(action)].map((topic) =>
      conn.subscribe(
        topic,
        (_topic, payload) => {
          const dropped = handleControllerMessage(runtime, action, payload, log);
          if (!dropped) return;
          counts.blockApiDropped++;
          warnings.warn(topic, dropped.fields, dropped.message);
        },
        { commands: true },
      ),
    ),
  );
  return () => unsubscribes.forEach((u) => u());
}
