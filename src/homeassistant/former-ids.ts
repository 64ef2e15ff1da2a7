// The Home Assistant device a controller had under a service id it no longer has.
// Unique ids, node and topics are made of the id, so a new id is a new device; the old one's
// configs stayed retained, and Home Assistant kept a second device with every entity unavailable
// (found again at each of its restarts). The data dir remembers the ids it published under
// (a settings row); the configs of a former id, found under its node by their unique ids, are
// cleared with the block states beside them, once that id's retained availability says it is not
// online: the old controller stopped (a clean stop or its last will). Only the copies the broker
// kept are cleared, never a config sent now. A controller that runs with the former id (it was
// given a copy of this data dir) says `online` or sends its configs, and from then on its configs
// are left alone for as long as this service runs. With no availability retained (the embedded
// broker forgets retained messages at a restart, and the old configs with them) nothing is cleared.
// A former id is forgotten once its clear is done or it is seen in use: the id is free again, and a
// controller given it later (while this one runs, or is off at this one's next start) is its owner.
// The clear is done once the broker acknowledged (QoS 1) every clear: the configs, the block states
// and the alerts' state. A stop (or a refusal by the broker's access rules) before that leaves the
// id remembered, and the next start, or the next connect of this run, clears again (the retained
// `offline` that starts a clear is left: a clear of it could land over the `online` of a controller
// just given the id). The clears end with a marker the controller must read back: a broker user that
// may write it but not read it is named in the log once READ_BOUND_MS have passed without it. No
// retained availability within READ_BOUND_MS of the subscription: nothing of the id is on the
// broker, or this controller may not read it (one broker user per service id, the fleet ACL); the
// id is forgotten, with a warning saying how to clear its device by hand. With Home Assistant off
// (`now` null) every remembered id is former, this controller's own included: turning it off
// removes the device.
import type { Logger } from '../log.js';
import type { AppMqtt } from '../mqtt/index.js';
import { isServiceId, isTopicRoot, nodeId } from '../shared/service-id.js';
import { availabilityTopic, blockNidOf, blockStateTopic, namesUniqueIdOf } from './device-topics.js';

/** One id this data dir published Home Assistant entities under, with the topic root of its availability. */
export interface PublishedId {
  serviceId: string;
  topicRoot: string;
}

/** Where the ids are remembered: one text value (JSON) of the data dir. */
export interface IdMemory {
  read(): string | undefined;
  write(value: string): void;
}

interface Remembered extends PublishedId {
  former: PublishedId[];
}

/** Former ids kept at most: each is one small subscription at every start. */
export const MAX_FORMER_IDS = 8;

/**
 * How long after the broker took a subscription the retained copies it holds may take to come (they
 * are sent with its acknowledgement): past it, what did not come is not there for this controller.
 */
export const READ_BOUND_MS = 5000;

const same = (a: PublishedId, b: PublishedId) => a.serviceId === b.serviceId && a.topicRoot === b.topicRoot;

/** An id the config would take: a damaged row must not name a wildcard (`+` would be every controller's availability). */
function isId(v: unknown): v is PublishedId {
  const { serviceId, topicRoot } = (typeof v === 'object' && v !== null ? v : {}) as Partial<PublishedId>;
  return (
    typeof serviceId === 'string' && isServiceId(serviceId) && typeof topicRoot === 'string' && isTopicRoot(topicRoot)
  );
}

/** The former ids after a start as `now` (null: Home Assistant off), from what the memory held (damaged text reads as none). */
export function formerIds(text: string | undefined, now: PublishedId | null): PublishedId[] {
  let stored: Partial<Remembered> = {};
  try {
    stored = text ? JSON.parse(text) : {};
  } catch {
    stored = {};
  }
  const former = Array.isArray(stored.former) ? stored.former.filter(isId) : [];
  if (isId(stored)) former.unshift({ serviceId: stored.serviceId, topicRoot: stored.topicRoot });
  // A new topic root alone keeps the node and unique ids: the configs go out again on their topics.
  const out: PublishedId[] = [];
  for (const f of former) if (f.serviceId !== now?.serviceId && !out.some((o) => same(o, f))) out.push(f);
  return out.slice(0, MAX_FORMER_IDS);
}

export interface FormerDevicesOptions {
  mqtt: Pick<AppMqtt, 'publishConfirmed' | 'subscribeRaw' | 'brokerPort'>;
  memory: IdMemory;
  /** The id entities are published under now; null with Home Assistant off. */
  now: PublishedId | null;
  discoveryPrefix: string;
  log: Logger;
}

/** Remembers `now` and clears the retained configs of the former ids' devices; answers the remove function. */
export function clearFormerDevices(o: FormerDevicesOptions): () => void {
  const text = o.memory.read();
  // Home Assistant off and never on (or nothing left to clear): nothing to write, nothing to watch.
  if (!o.now && text === undefined) return () => {};
  const former = formerIds(text, o.now);
  remember(o, former);
  return chain(former.map((f) => watch(o, f)));
}

function remember(o: FormerDevicesOptions, former: PublishedId[]): void {
  try {
    o.memory.write(JSON.stringify({ ...o.now, former }));
  } catch (e) {
    o.log.warn({ err: e }, 'home assistant: cannot remember the service ids in the data dir');
  }
}

/** Done with `f`: cleared, or in use by another controller. */
function forget(o: FormerDevicesOptions, f: PublishedId): void {
  remember(
    o,
    formerIds(o.memory.read(), o.now).filter((x) => !same(x, f)),
  );
}

function chain(fns: Array<() => void>): () => void {
  return () => {
    for (const fn of fns.splice(0)) fn();
  };
}

function watch(o: FormerDevicesOptions, f: PublishedId): () => void {
  const node = nodeId(f.serviceId);
  const availability = availabilityTopic(f.topicRoot, f.serviceId);
  // A controller runs with that id: its entities are its own from then on, for this whole run.
  let live = false;
  let done = false;
  let stopped = false;
  let clearing: (() => void) | null = null;
  const seenLive = () => {
    if (live) return;
    live = true;
    o.log.info(
      `home assistant: the former service id ${f.serviceId} is online (another controller runs with it); its entities are left alone`,
    );
    forget(o, f);
    clearing?.();
    clearing = null;
  };
  /** The clears sent, by topic (the latest of each): each true once the broker took it. */
  const sent = new Map<string, Promise<boolean>>();
  const clear = (topic: string) => sent.set(topic, o.mqtt.publishConfirmed(topic, '', { retain: true }));
  // The end of the retained configs: the clear of the alerts' state (also the device's), sent once
  // the subscription is acknowledged and heard back. The broker queues what it sends a client in
  // order: the retained copies when it took the subscription, this message when it took the publish
  // (its acknowledgement is no mark: Mosquitto sends one at once, ahead of messages still queued).
  const marker = `${f.topicRoot}/alerts/${f.serviceId}/ha`;
  let heard: ((ok: boolean) => void) | null = null;
  const timers = new Set<NodeJS.Timeout>();
  const after = (fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, READ_BOUND_MS);
    timers.add(timer.unref());
  };
  const settle = async (subscribed: boolean) => {
    if (live || done) return;
    heard?.(false);
    let resolveBack: (ok: boolean) => void = () => {};
    const back = new Promise<boolean>((resolve) => (resolveBack = resolve));
    heard = resolveBack;
    const took = subscribed && (await o.mqtt.publishConfirmed(marker, '', { retain: true }));
    // A broker that takes the marker but never sends it back: this controller may write it, not read it.
    let unread = false;
    if (took)
      after(() => {
        unread = true;
        resolveBack(false);
      });
    const end = took && (await back);
    const finished = end && (await Promise.all(sent.values())).every(Boolean);
    if (live || done) return;
    if (finished) {
      done = true;
      forget(o, f);
      // Done: a config that comes later is another controller's (one given the id).
      clearing?.();
      o.log.info(`home assistant: removed the entities of the former service id ${f.serviceId} (device ${node})`);
      return;
    }
    // Stopped meanwhile: the clears the stop cut off are tried again at the next start, without a word.
    if (stopped) return;
    if (unread)
      return o.log.warn(
        `home assistant: the entities of the former service id ${f.serviceId} may not all be removed: the broker took ${marker} (the end of the clears) but did not send it back within ${READ_BOUND_MS / 1000} s, so this controller's broker user may write that topic but not read it (give it readwrite there, as the fleet ACL does); trying again at the next connect or start`,
      );
    o.log.warn(
      `home assistant: the entities of the former service id ${f.serviceId} are not all removed (the broker refused a clear, or the connection dropped); trying again at the next connect or start`,
    );
  };
  // Only what the broker kept from before decides, and only that is cleared: a live `offline` or a
  // config sent now is a controller with that id at work (stopping, or starting up before its
  // presence says `online`).
  // Nothing retained came (or the broker refused the subscription): nothing of the id is on the
  // broker, or this controller may not read it.
  let heardAvailability = false;
  let waiting = false;
  const unheard = () => {
    if (heardAvailability || live || done || stopped) return;
    done = true;
    unreachable(o, f);
  };
  const stopAvailability = o.mqtt.subscribeRaw(
    availability,
    (_topic, payload, retained) => {
      if (payload.length) heardAvailability = true;
      onAvailability(payload, retained);
    },
    {
      subscribed: (ok) => {
        if (!ok) return unheard();
        if (waiting) return;
        waiting = true;
        after(unheard);
      },
    },
  );
  function onAvailability(payload: Buffer, retained: boolean) {
    if (payload.length === 0) return;
    if (payload.toString() === 'online') return seenLive();
    if (!retained || live || clearing || done) return;
    o.log.info(`home assistant: removing the entities of the former service id ${f.serviceId} (device ${node})`);
    const configs = o.mqtt.subscribeRaw(
      `${o.discoveryPrefix}/+/${node}/+/config`,
      (topic, config, kept) => {
        if (live || config.length === 0 || !namesUniqueIdOf(config, f.serviceId)) return;
        if (!kept) return seenLive();
        clear(topic);
        const nid = blockNidOf(topic.split('/')[3] ?? '');
        if (nid !== null) clear(blockStateTopic(f.topicRoot, f.serviceId, nid));
      },
      { subscribed: (ok) => void settle(ok) },
    );
    const end = o.mqtt.subscribeRaw(marker, (_topic, payload, kept) => {
      if (kept || payload.length) return;
      heard?.(true);
      heard = null;
    });
    clearing = chain([configs, end]);
  }
  return () => {
    stopped = true;
    for (const timer of timers) clearTimeout(timer);
    stopAvailability();
    clearing?.();
  };
}

/**
 * No retained availability of `f` reached this controller: the embedded broker keeps none over a
 * restart, and under one broker user per service id (the fleet ACL) a controller may neither read
 * nor clear another id's topics. Nothing here can remove that device, so the id is forgotten (one
 * word, not one at every start), saying how to clear it by hand.
 */
function unreachable(o: FormerDevicesOptions, f: PublishedId): void {
  forget(o, f);
  const node = nodeId(f.serviceId);
  if (o.mqtt.brokerPort !== null) {
    o.log.info(
      `home assistant: nothing of the former service id ${f.serviceId} is retained on the embedded broker (it keeps none over a restart); if Home Assistant still lists the device ${node}, delete it there`,
    );
    return;
  }
  const topics = [
    `${o.discoveryPrefix}/+/${node}/#`,
    `${f.topicRoot}/ha/${f.serviceId}/#`,
    `${f.topicRoot}/alerts/${f.serviceId}/ha`,
  ];
  o.log.warn(
    `home assistant: the device ${node} of the former service id ${f.serviceId} cannot be removed from here: no retained availability (${availabilityTopic(f.topicRoot, f.serviceId)}) reached this controller within ${READ_BOUND_MS / 1000} s of subscribing. Either nothing of that id is retained on the broker, or the broker's access rules do not let this controller's user read its topics (one broker user per service id, as in the fleet ACL). The id is no longer watched. If Home Assistant still lists the device, clear its retained topics as a broker user that may (that id's own): mosquitto_sub ${topics.map((t) => `-t '${t}'`).join(' ')} --remove-retained --retained-only -W 2, with -h, -u and -P of that user`,
  );
}
