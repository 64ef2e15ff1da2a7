// The block API over MQTT: `R/controller/blocks/{create,write,patch,delete}`, and the same on
// `R/spark/blocks/...`, where Brewblox services write blocks. A message is
// handled only when its serviceId is ours (the topics are shared by every controller), with the
// same validation and size limit as REST. Whatever is wrong with a message is logged and the message dropped.
import { BODY_LIMIT } from '../api/server.js';
import { isPlainObject } from '../codec/decode.js';
import type { Logger } from '../log.js';
import type { BlockRuntime } from '../runtime/runtime.js';
import type { MqttConnection } from './connection.js';
import { CONTROLLER_ACTIONS, type ControllerAction, type Topics } from './topics.js';

export const MQTT_ORIGIN = 'mqtt';

export function handleControllerMessage(runtime: BlockRuntime, action: ControllerAction, payload: Buffer, log: Logger): void {
  if (payload.length > BODY_LIMIT) {
    log.warn({ action, bytes: payload.length, limit: BODY_LIMIT }, `mqtt blocks/${action} dropped: the payload is ${payload.length} bytes, over the ${BODY_LIMIT}-byte limit (the same as REST)`);
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(payload.toString('utf8'));
  } catch (e) {
    log.warn({ action, reason: `not JSON: ${(e as Error).message}` }, `mqtt blocks/${action} dropped: the payload is not JSON`);
    return;
  }
  if (!isPlainObject(body)) {
    log.warn({ action, reason: 'not a JSON object' }, `mqtt blocks/${action} dropped: the payload is not a JSON object (a block)`);
    return;
  }
  if (body.serviceId !== runtime.serviceId) {
    log.debug({ action, serviceId: body.serviceId }, `mqtt blocks/${action} ignored: for another service`);
    return;
  }
  try {
    const result = runtime[action](body, MQTT_ORIGIN);
    log.debug({ action, id: result.id }, `mqtt blocks/${action} done`);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    log.warn({ action, id: body.id, nid: body.nid, reason }, `mqtt blocks/${action} dropped: ${reason}`);
  }
}

export function subscribeControllerTopics(opts: { conn: MqttConnection; runtime: BlockRuntime; topics: Topics; log: Logger }): () => void {
  const { conn, runtime, topics, log } = opts;
  const unsubscribes = CONTROLLER_ACTIONS.flatMap((action) =>
    [topics.controller(action), topics.sparkBlocks(action)].map((topic) => conn.subscribe(topic, (_topic, payload) => handleControllerMessage(runtime, action, payload, log))),
  );
  return () => unsubscribes.forEach((u) => u());
}
