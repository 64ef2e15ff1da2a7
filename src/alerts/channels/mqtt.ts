// MQTT: the active alerts as one retained list on <root>/alerts/<service id>, published on every
// change and (re)connect. It is state, not a message stream, so it needs no outbox: the broker
// keeps the latest list. With Home Assistant discovery on, one binary_sensor (device class
// `problem`) per condition kind, on while any alert of that kind is active.
import type { AppMqtt } from '../../mqtt/index.js';
import { uniqueIdPrefix } from '../../homeassistant/device-topics.js';
import { availabilityTopic, DISCOVERY_PREFIX, haObjectId, nodeId } from '../../homeassistant/discovery.js';
import { haDevice } from '../../homeassistant/entity-config.js';
import { CONDITION_KINDS, CONDITION_TITLES, type ActiveAlert } from '../types.js';

export interface MqttAlertsOptions {
  mqtt: AppMqtt;
  topicRoot: string;
  serviceId: string;
  homeAssistant: boolean;
  version: string;
  active: () => ActiveAlert[];
}

export function alertsTopic(topicRoot: string, serviceId: string): string {
  return `${topicRoot}/alerts/${serviceId}`;
}

/** The object id of a condition kind's binary_sensor in its discovery topic. */
function objectIdOf(kind: string): string {
  return `alert_${kind.replace(/-/g, '_')}`;
}

export class MqttAlerts {
  private readonly topic: string;
  private readonly cleanups: Array<() => void> = [];

  constructor(private readonly o: MqttAlertsOptions) {
    this.topic = alertsTopic(o.topicRoot, o.serviceId);
  }

  start(): void {
    this.cleanups.push(this.o.mqtt.onConnect(() => this.publishAll()));
    if (this.o.mqtt.connected) this.publishAll();
  }

  stop(): void {
    for (const c of this.cleanups.splice(0)) c();
  }

  private publishAll(): void {
    this.announceConfigs();
    this.publish();
  }

  /** The Home Assistant configs of every binary_sensor (with discovery on): at connect, and at Home Assistant's birth message. */
  announceConfigs(): void {
    if (this.o.homeAssistant)
      for (const kind of CONDITION_KINDS)
        this.o.mqtt.publish(this.configTopic(kind), this.haConfig(kind), { retain: true });
  }

  /**
   * Publishes the Home Assistant config of the binary_sensor with this object id (`alert_<kind>`)
   * again, when there is one: Home Assistant discovery (src/homeassistant/discovery.ts,
   * onLegacyCleared) cleared the config an older version left under the legacy node, which
   * removed the entity. Other object ids are not this channel's.
   */
  republishConfig(objectId: string): void {
    if (!this.o.homeAssistant) return;
    const kind = CONDITION_KINDS.find((k) => objectIdOf(k) === objectId);
    if (kind) this.o.mqtt.publish(this.configTopic(kind), this.haConfig(kind), { retain: true });
  }

  /** The current list (and the Home Assistant states); call after every change. */
  publish(): void {
    const active = this.o.active();
    const list = active.map((a) => ({
      key: a.key,
      condition: a.kind,
      blockId: a.blockId ?? null,
      text: a.text,
      since: new Date(a.firstSeenAt).toISOString(),
      ...(a.stopUnknown ? { stopUnknown: true } : {}),
      count: a.count,
      acknowledged: a.acknowledged,
    }));
    this.o.mqtt.publish(this.topic, { serviceId: this.o.serviceId, active: list }, { retain: true });
    if (!this.o.homeAssistant) return;
    const state = Object.fromEntries(
      CONDITION_KINDS.map((k) => [k.replace(/-/g, '_'), active.some((a) => a.kind === k) ? 'ON' : 'OFF']),
    );
    this.o.mqtt.publish(`${this.topic}/ha`, state, { retain: true });
  }

  private configTopic(kind: string): string {
    return `${DISCOVERY_PREFIX}/binary_sensor/${nodeId(this.o.serviceId)}/${objectIdOf(kind)}/config`;
  }

  private haConfig(kind: (typeof CONDITION_KINDS)[number]): Record<string, unknown> {
    const { serviceId, topicRoot, version } = this.o;
    const key = kind.replace(/-/g, '_');
    const unique = `${uniqueIdPrefix(serviceId)}alert_${key}`;
    return {
      name: `Alert: ${CONDITION_TITLES[kind]}`,
      unique_id: unique,
      default_entity_id: `binary_sensor.${haObjectId('edgeblocks', serviceId, 'alert', key)}`,
      device_class: 'problem',
      state_topic: `${this.topic}/ha`,
      value_template: `{{ value_json.${key} }}`,
      json_attributes_topic: this.topic,
      json_attributes_template: `{{ {'alerts': value_json.active | selectattr('condition', 'eq', '${kind}') | map(attribute='text') | list} | tojson }}`,
      availability: [{ topic: availabilityTopic(topicRoot, serviceId) }],
      device: haDevice(serviceId, version),
    };
  }
}
