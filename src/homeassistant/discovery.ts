// Home Assistant MQTT discovery (opt-in, `homeAssistant: true`). For every block with entities
// (see entities.ts): a retained config on `homeassistant/<component>/<node>/<nid>_<key>/config`,
// a retained JSON state on `<root>/ha/<serviceId>/<nid>`, and command topics
// `<root>/ha/<serviceId>/<nid>/set/<key>` that patch the block through the runtime (commands.ts). Unique ids
// are built from the service id and the block nid, so they survive restarts and renames.
// Availability is a small retained topic `<root>/ha/<serviceId>/availability` (`online`/`offline`,
// with an `offline` last will: see mqtt/presence.ts), so entities never parse the state message.
// Temperatures are announced in the user's unit (the units document); when it changes every
// config is announced again, and commands are read in the unit of the config last announced.
// A deleted block's configs and state are replaced by empty retained messages, which removes the
// entities. What is published is kept by nid, as the topics are: a backup load that puts another
// block (of another type) at a nid replaces or removes what the one before had there. Configs left
// from blocks deleted while the service was down or away from the broker (its publishes dropped)
// are found and removed on connect, and the block's retained state with them. Configs an older
// version left under the node an id with `.` or `~` had before (legacyNodeId) are cleared, and
// the entity's config on the new node is published again after the clear: see sweepLegacy. The
// device of a service id (or topic root) the data dir had before is removed: former-ids.ts.
// Deleting the device in Home Assistant clears its configs (empty retained messages from someone
// else on configs we hold): from then on no config goes out, so it stays deleted rather than coming
// back an entity at a time as blocks are written, until Home Assistant's birth message (`online` on
// homeassistant/status, sent at its start) or our next connect announces the whole device again.
import type { Logger } from '../log.js';
import { WarningLimiter } from '../log/limit.js';
import { SpacedCall } from '../shared/spaced-call.js';
import { HA_COMMAND_BYTES } from '../shared/limits.js';
import type { AppMqtt } from '../mqtt/index.js';
import { ALL, type BlockJson, type BlockRuntime, type ChangeEvent } from '../runtime/runtime.js';
import type { UnitsSetting } from '../runtime/units-setting.js';
import { announce, DRIVEN_BY_KEY, stateOf, type Announcement, type EntitySpec } from './entities.js';
import { HA_ORIGIN, HaCommands } from './commands.js';
import { driverOf } from '../shared/driven.js';
import { legacyNodeId, nodeId } from '../shared/service-id.js';
import { defaultEntityIds, entityKey, entitySlug, haObjectId } from './entity-ids.js';
import { entityConfig } from './entity-config.js';
import { availabilityTopic, blockNidOf, blockStateTopic, namesUniqueIdOf } from './device-topics.js';
import { clearFormerDevices, type IdMemory } from './former-ids.js';

export const DISCOVERY_PREFIX = 'homeassistant';
export { HA_ORIGIN };
/** Where Home Assistant says `online` when it starts (its birth message) and `offline` when it stops. */
export const HA_STATUS_TOPIC = `${DISCOVERY_PREFIX}/status`;
/** Births are answered (every config sent again) at most this often: a client repeating one gets no flood back. */
export const BIRTH_ANSWER_INTERVAL_MS = 1000;

export interface HomeAssistantOptions {
  mqtt: AppMqtt;
  runtime: BlockRuntime;
  units: Pick<UnitsSetting, 'prefs' | 'on' | 'off'>;
  serviceId: string;
  topicRoot: string;
  version: string;
  intervalMs: number;
  log: Logger;
  /** Where the ids entities were published under are remembered, to remove a former id's device: former-ids.ts. */
  memory?: IdMemory;
}

export { entitySlug, haObjectId, nodeId };

export { availabilityTopic };

export class HomeAssistant {
  private readonly node: string;
  /** Published config topics per block nid (what the entities are of), to clear them when the block goes. */
  private readonly published = new Map<number, string[]>();
  /** What each entity's config (by `<nid>_<key>`) last told Home Assistant: commands are read in it. */
  private readonly announced = new Map<string, Announcement>();
  /** The default entity id of each entity (by `<nid>_<key>`), distinct over all blocks: entity-ids.ts. */
  private entityIds = new Map<string, string>();
  private readonly cleanups: Array<() => void> = [];
  /** Told the object id of every legacy config cleared that is not a block entity's (the alert binary_sensors). */
  private readonly legacyListeners = new Set<(objectId: string) => void>();
  /** Told when the whole device is announced again (Home Assistant's birth): the alert binary_sensors go out too. */
  private readonly announceListeners = new Set<() => void>();
  /** The device was deleted in Home Assistant: no config goes out until it is announced whole again. */
  private deletedInHa = false;
  /** Home Assistant started: the whole device goes out, the alert binary_sensors too. */
  private readonly birth = new SpacedCall(BIRTH_ANSWER_INTERVAL_MS, () => {
    this.announceAgain();
    for (const fn of this.announceListeners) fn();
  });
  /** Config topics under our node we cleared and have not yet heard back (each clear comes back once: we are subscribed). */
  private readonly ownClears = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  /** Commands from Home Assistant, read in what `announced` says went out: commands.ts. */
  private readonly commands: HaCommands;
  /** Lines caused by what others publish (configs under our node): one a minute per kind. */
  private readonly notes: WarningLimiter;

  constructor(private readonly o: HomeAssistantOptions) {
    this.node = nodeId(o.serviceId);
    this.commands = new HaCommands({ runtime: o.runtime, units: o.units, announced: this.announced, log: o.log });
    this.notes = new WarningLimiter(o.log, { level: 'info' });
  }

  private stateTopic(nid: number): string {
    return blockStateTopic(this.o.topicRoot, this.o.serviceId, nid);
  }

  get availabilityTopic(): string {
    return availabilityTopic(this.o.topicRoot, this.o.serviceId);
  }

  private configTopic(spec: EntitySpec, nid: number): string {
    return `${DISCOVERY_PREFIX}/${spec.component}/${this.node}/${entityKey(nid, spec)}/config`;
  }

  start(): void {
    const { mqtt, runtime, units } = this.o;
    this.cleanups.push(mqtt.presence(this.availabilityTopic));
    this.cleanups.push(mqtt.onConnect(() => this.announceAgain()));
    this.cleanups.push(
      // A retained copy is not a start of Home Assistant: at our (re)connect the device goes out anyway.
      mqtt.subscribeRaw(HA_STATUS_TOPIC, (_topic, payload, retained) => {
        if (!retained && payload.toString() === 'online') this.birth.call();
      }),
    );
    const onUnits = () => this.publishAll();
    units.on('change', onUnits);
    this.cleanups.push(() => units.off('change', onUnits));
    this.cleanups.push(
      mqtt.subscribe(
        `${this.o.topicRoot}/ha/${this.o.serviceId}/+/set/+`,
        (topic, payload) => this.commands.handle(topic, payload),
        { maxBytes: HA_COMMAND_BYTES, commands: true },
      ),
    );
    this.cleanups.push(
      // Only whether a config is there matters: it is never parsed.
      mqtt.subscribeRaw(`${DISCOVERY_PREFIX}/+/${this.node}/+/config`, (topic, payload) =>
        payload.length ? this.sweep(topic, payload) : this.cleared(topic),
      ),
    );
    const legacy = legacyNodeId(this.o.serviceId);
    if (legacy !== this.node)
      this.cleanups.push(
        mqtt.subscribeRaw(`${DISCOVERY_PREFIX}/+/${legacy}/+/config`, (topic, payload) =>
          this.sweepLegacy(topic, payload),
        ),
      );
    if (this.o.memory)
      this.cleanups.push(
        clearFormerDevices({
          mqtt,
          memory: this.o.memory,
          now: { serviceId: this.o.serviceId, topicRoot: this.o.topicRoot },
          discoveryPrefix: DISCOVERY_PREFIX,
          log: this.o.log,
        }),
      );
    const onChange = (ev: ChangeEvent) => this.onChange(ev);
    runtime.on('change', onChange);
    this.cleanups.push(() => runtime.off('change', onChange));
    this.timer = setInterval(() => this.publishStates(), this.o.intervalMs);
    this.timer.unref();
    if (mqtt.connected) this.announceAgain();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.birth.cancel();
    for (const c of this.cleanups.splice(0)) c();
  }

  /**
   * Calls `fn` with the object id (`alert_<kind>`) of each config this controller left under its
   * legacy node that is not a block entity's, once it is cleared: the one who publishes that
   * entity publishes its config again (see sweepLegacy). Returns the remove function.
   */
  onLegacyCleared(fn: (objectId: string) => void): () => void {
    this.legacyListeners.add(fn);
    return () => this.legacyListeners.delete(fn);
  }

  /** Calls `fn` when Home Assistant asks for the whole device again (its birth message). Returns the remove function. */
  onAnnounceAgain(fn: () => void): () => void {
    this.announceListeners.add(fn);
    return () => this.announceListeners.delete(fn);
  }

  /** Config payload of one entity: entity-config.ts. */
  config(
    spec: EntitySpec,
    block: BlockJson,
    announced: Announcement = announce(spec, this.o.units.prefs),
  ): Record<string, unknown> {
    return entityConfig(spec, block, announced, {
      serviceId: this.o.serviceId,
      version: this.o.version,
      stateTopic: this.stateTopic(block.nid),
      availabilityTopic: this.availabilityTopic,
      defaultEntityId:
        this.entityIds.get(entityKey(block.nid, spec)) ?? `${spec.component}.${entitySlug(this.o.serviceId, block)}`,
    });
  }

  private entityState(block: BlockJson, specs: readonly EntitySpec[]): Record<string, unknown> {
    const state: Record<string, unknown> = Object.fromEntries(specs.map((s) => [s.key, stateOf(s, block)]));
    // A block with a control names who drives it (its attributes in Home Assistant).
    if (specs.some((s) => s.write)) state[DRIVEN_BY_KEY] = driverOf(block.data);
    return state;
  }

  /** The entities of a block: its type's, less those its data rules out (`when`: a chip without that sensor). */
  private entitiesOf(block: { type: string; data: Record<string, unknown> }): readonly EntitySpec[] | undefined {
    return this.o.runtime.types.get(block.type)?.homeAssistant?.filter((s) => !s.when || s.when(block.data));
  }

  private publishBlock(block: BlockJson): void {
    const specs = this.entitiesOf(block);
    // A block without entities where one with entities was (a backup load numbers blocks anew).
    if (!specs) return this.unpublish(block.nid);
    const topics = specs.map((s) => this.configTopic(s, block.nid));
    // An entity the block no longer has (its chip changed to one without that sensor, another
    // block at its nid after a backup load) goes.
    for (const gone of this.published.get(block.nid) ?? []) {
      if (topics.includes(gone)) continue;
      this.announced.delete(gone.split('/')[3] ?? '');
      this.clearConfig(gone);
    }
    specs.forEach((s, i) => {
      if (this.deletedInHa) return;
      const announced = announce(s, this.o.units.prefs);
      // Only a config that went out is what Home Assistant holds; while disconnected the old one stays.
      if (this.o.mqtt.publish(topics[i]!, this.config(s, block, announced), { retain: true }))
        this.announced.set(entityKey(block.nid, s), announced);
    });
    this.published.set(block.nid, topics);
    this.o.mqtt.publish(this.stateTopic(block.nid), this.entityState(block, specs), { retain: true });
  }

  private unpublish(nid: number): void {
    const topics = this.published.get(nid);
    if (!topics) return;
    this.published.delete(nid);
    for (const key of [...this.announced.keys()]) if (key.startsWith(`${nid}_`)) this.announced.delete(key);
    for (const topic of topics) this.clearConfig(topic);
    this.o.mqtt.publish(this.stateTopic(nid), '', { retain: true });
  }

  /** An empty retained config, which removes the entity; we hear it back, and know it for ours. */
  private clearConfig(topic: string): void {
    if (this.o.mqtt.publish(topic, '', { retain: true }))
      this.ownClears.set(topic, (this.ownClears.get(topic) ?? 0) + 1);
  }

  /** A config under our node was cleared: by us, or by Home Assistant deleting the device (or by someone with a client). */
  private cleared(topic: string): void {
    const own = this.ownClears.get(topic);
    if (own) {
      if (own > 1) this.ownClears.set(topic, own - 1);
      else this.ownClears.delete(topic);
      return;
    }
    if (this.deletedInHa || ![...this.published.values()].some((topics) => topics.includes(topic))) return;
    this.deletedInHa = true;
    this.o.log.info(
      `home assistant: the device edgeblocks ${this.o.serviceId} was deleted there (${topic} cleared); it is announced again when Home Assistant restarts or edgeblocks reconnects`,
    );
  }

  /** The whole device, after a connect or Home Assistant's birth: one deleted in Home Assistant comes back. */
  private announceAgain(): void {
    this.deletedInHa = false;
    // Clears sent on a connection that dropped are not heard back.
    this.ownClears.clear();
    this.publishAll();
  }

  private publishAll(): void {
    this.refreshEntityIds();
    for (const block of this.o.runtime.read(ALL).json()) this.publishBlock(block);
  }

  /** Computes every block's default entity ids again; answers the nids whose ids changed. */
  private refreshEntityIds(): Set<number> {
    const owners = this.o.runtime.blocks().flatMap((b) => {
      const specs = this.entitiesOf({ type: b.def.type, data: b.data as Record<string, unknown> });
      return specs?.length ? [{ id: b.id, nid: b.nid, specs }] : [];
    });
    const next = defaultEntityIds(this.o.serviceId, owners);
    const moved = new Set<number>();
    for (const o of owners)
      if (o.specs.some((s) => next.get(entityKey(o.nid, s)) !== this.entityIds.get(entityKey(o.nid, s))))
        moved.add(o.nid);
    this.entityIds = next;
    return moved;
  }

  private publishStates(): void {
    if (!this.o.mqtt.connected) return;
    for (const block of this.o.runtime.read(ALL).json()) {
      const specs = this.entitiesOf(block);
      if (specs) this.o.mqtt.publish(this.stateTopic(block.nid), this.entityState(block, specs), { retain: true });
    }
  }

  private onChange(ev: ChangeEvent): void {
    // Entities are per nid: a renamed block keeps them (only the name changes); a nid no block has any more loses them.
    const liveNids = new Set(this.o.runtime.blocks().map((b) => b.nid));
    for (const nid of [...this.published.keys()]) if (!liveNids.has(nid)) this.unpublish(nid);
    // A block that came, went or was renamed can change another's default entity id (entity-ids.ts).
    const moved = this.refreshEntityIds();
    const changed = new Set(ev.changed.map((b) => b.nid));
    for (const b of ev.changed) this.publishBlock(this.o.runtime.read(b).json());
    for (const b of this.o.runtime.blocks())
      if (moved.has(b.nid) && !changed.has(b.nid)) this.publishBlock(this.o.runtime.read(b).json());
  }

  /** A retained config of ours for an entity that no longer exists is cleared. */
  private sweep(topic: string, payload: Buffer): void {
    if (payload.length === 0) return;
    const objectId = topic.split('/')[3] ?? '';
    // Not a block entity (e.g. the alert binary_sensors, src/alerts/channels/mqtt.ts): not ours to sweep.
    const nid = blockNidOf(objectId);
    if (nid === null) return;
    const key = objectId.slice(objectId.indexOf('_') + 1);
    const block = this.o.runtime.blocks().find((b) => b.nid === nid);
    const specs = block
      ? this.entitiesOf({ type: block.def.type, data: block.data as Record<string, unknown> })
      : undefined;
    if (specs?.some((s) => s.key === key && topic === this.configTopic(s, nid))) return;
    this.notes.warn('sweep', { topic }, `home assistant: removing the entity of a block that is gone (${topic})`);
    this.clearConfig(topic);
    // Its state was left with it (both were dropped while disconnected): it goes unless the block
    // at that nid has entities, whose state is published there.
    if (!specs?.length) this.o.mqtt.publish(this.stateTopic(nid), '', { retain: true });
  }

  /**
   * A config this controller left under the node its id had before nodeId kept ids apart: that
   * node is shared with other ids (`ferm.1`, `ferm_1`), so only configs naming our unique ids go.
   * Read as bytes, never parsed (our configs are written by JSON.stringify, a service id needs no escape).
   * The unique ids did not change, so Home Assistant ignored the config on the new node while the
   * old topic held its unique id ("unique_id already exists"), and the empty config removes the
   * entity: after the clear the entity's config on the new node is published again, so that Home
   * Assistant adds it back at once (a block entity's here; another, the alert binary_sensors, by
   * the listeners of onLegacyCleared). The entity gets a new registry entry: its customisations in
   * Home Assistant do not carry over.
   */
  private sweepLegacy(topic: string, payload: Buffer): void {
    if (!namesUniqueIdOf(payload, this.o.serviceId)) return;
    this.notes.warn(
      'legacy',
      { topic },
      `home assistant: removing a config from before the node id ${this.node} (${topic})`,
    );
    this.o.mqtt.publish(topic, '', { retain: true });
    const objectId = topic.split('/')[3] ?? '';
    const nid = blockNidOf(objectId);
    if (nid === null) {
      for (const fn of this.legacyListeners) fn(objectId);
      return;
    }
    // Its block, if it still has entities; an entity that is gone stays gone.
    const block = this.o.runtime.blocks().find((b) => b.nid === nid);
    if (block) this.publishBlock(this.o.runtime.read(block).json());
  }
}
