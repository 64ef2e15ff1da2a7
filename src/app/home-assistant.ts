// Home Assistant in the app. On: its discovery (homeassistant/discovery.ts), the alert
// binary_sensors announced with the block entities. Off: the devices it published while it was on
// are removed (homeassistant/former-ids.ts). Either way the data dir remembers the ids entities
// went out under, in one settings row.
import type { Alerts } from '../alerts/index.js';
import type { Config } from '../config.js';
import { DISCOVERY_PREFIX, HomeAssistant } from '../homeassistant/discovery.js';
import { clearFormerDevices, type IdMemory } from '../homeassistant/former-ids.js';
import type { Logger } from '../log.js';
import type { AppMqtt } from '../mqtt/index.js';
import type { BlockRuntime } from '../runtime/runtime.js';
import type { UnitsSetting } from '../runtime/units-setting.js';
import { VERSION } from '../shared/version.js';
import type { BlockStore } from '../store/block-store.js';
import type { Subsystem } from './lifecycle.js';

/** The settings row naming the ids Home Assistant entities were published under (homeassistant/former-ids.ts). */
const HA_IDS_SETTING = 'homeassistant_ids';

export interface HomeAssistantWiring {
  config: Pick<Config, 'homeAssistant' | 'serviceId' | 'topicRoot' | 'emitInterval'>;
  mqtt: AppMqtt;
  runtime: BlockRuntime;
  units: UnitsSetting;
  alerts: Pick<Alerts, 'homeAssistantConfigCleared' | 'homeAssistantAnnounceAgain'>;
  blocks: Pick<BlockStore, 'readSetting' | 'writeSetting'>;
  log: Logger;
}

/** The subsystem of Home Assistant on, or of it off (the removal of what it published while on). */
export function homeAssistantSubsystem(o: HomeAssistantWiring): Subsystem {
  const memory: IdMemory = {
    read: () => o.blocks.readSetting(HA_IDS_SETTING),
    write: (value) => o.blocks.writeSetting(HA_IDS_SETTING, value),
  };
  const log = o.log.child({ module: 'homeassistant' });
  if (!o.config.homeAssistant)
    return turnedOff(() =>
      clearFormerDevices({ mqtt: o.mqtt, memory, now: null, discoveryPrefix: DISCOVERY_PREFIX, log }),
    );
  const ha = new HomeAssistant({
    mqtt: o.mqtt,
    runtime: o.runtime,
    units: o.units,
    serviceId: o.config.serviceId,
    topicRoot: o.config.topicRoot,
    version: VERSION,
    intervalMs: o.config.emitInterval,
    log,
    memory,
  });
  // The alert binary_sensors share the controller's node: their old configs are swept with the blocks'.
  ha.onLegacyCleared((objectId) => o.alerts.homeAssistantConfigCleared(objectId));
  ha.onAnnounceAgain(() => o.alerts.homeAssistantAnnounceAgain());
  return { name: 'home assistant', start: () => ha.start(), stop: () => ha.stop() };
}

/** With Home Assistant off: `start` clears the devices it published while on and answers the remove function. */
function turnedOff(start: () => () => void): Subsystem {
  let stop: (() => void) | null = null;
  return {
    name: 'home assistant',
    start: () => {
      stop = start();
    },
    stop: () => {
      stop?.();
      stop = null;
    },
  };
}
